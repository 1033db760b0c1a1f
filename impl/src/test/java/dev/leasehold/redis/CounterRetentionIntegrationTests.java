package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisServerExtension;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fencing counter's retention on a real redis-server: under {@code CLOCK_FLOOR} a resource
 * nobody holds leaves no key once the retention has passed, a renewal keeps the counter alive as
 * long as the lease, and under {@code COUNTER} the counter stays. Time is judged by the server's
 * own clock ({@code TIME}), never by how fast this thread ran.
 */
class CounterRetentionIntegrationTests {
  static final int RESOURCES = 2_000;
  static final Duration TTL = Duration.ofMillis(1_000);
  static final Duration RETENTION = Duration.ofMillis(500);

  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension("retention-it");
  static RedisCommands<String, String> raw;
  LettuceLeaseGateway gateway;

  @BeforeAll
  static void connectRaw() {
    raw = REDIS.commands();
  }

  @BeforeEach
  void connect() {
    gateway = LettuceLeaseGateway.connect(REDIS.uri(), Duration.ofSeconds(2));
  }

  @AfterEach
  void close() {
    gateway.close();
  }

  RedisLeaseAdapter adapter(String namespace, FenceMode mode) {
    return RedisLeaseAdapter.builder(gateway).namespace(namespace).fenceMode(mode).counterRetention(RETENTION).build();
  }

  static LeaseRequest request(LeaseAttempt attempt, int resource, Duration ttl) {
    return LeaseRequest.once("orders", ResourceDigests.sha256("order-" + resource), ttl, attempt);
  }

  @Test
  void clockFloor_resourcesNobodyHoldsLeaveNoKeyOnceTheRetentionHasPassed() {
    RedisLeaseAdapter adapter = adapter("retained", FenceMode.CLOCK_FLOOR);
    long limitMs = TTL.plus(RETENTION).toMillis();
    for (int i = 0; i < RESOURCES; i++) {
      long before = serverMicros();
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class,
          adapter.tryAcquire(request(adapter.newAttempt("op-" + i), i, TTL))).handle();
      if (i % 2 == 0) {
        assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(TTL));
      }
      assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
      // The released resource's counter is still there with at most TTL + retention left, unless the
      // server's clock shows that this much has passed since before the grant.
      LeaseKeys keys = adapter.keys("orders", ResourceDigests.sha256("order-" + i));
      long pttl = raw.pttl(keys.fence());
      boolean expired = pttl == -2 && serverMicros() > before + limitMs * 1_000;
      assertTrue(expired || pttl > 0 && pttl <= limitMs, keys.fence() + " has PTTL " + pttl);
      assertEquals(0L, raw.exists(keys.lease()));
    }

    // Once the server's clock is past the last write plus TTL + retention, nothing of the namespace is left.
    awaitServerMicros(serverMicros() + (limitMs + 1) * 1_000);
    assertEquals(List.of(), keys("retained:*"));
  }

  @Test
  void clockFloor_aRenewalKeepsTheCounterAliveAsLongAsTheLease() {
    RedisLeaseAdapter adapter = adapter("renewed", FenceMode.CLOCK_FLOOR);
    LeaseAttempt attempt = adapter.newAttempt("op");
    LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class,
        adapter.tryAcquire(request(attempt, 0, TTL))).handle();
    Duration longer = Duration.ofSeconds(30);
    assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(longer));
    LeaseKeys keys = adapter.keys("orders", ResourceDigests.sha256("order-0"));
    long leaseTtl = raw.pttl(keys.lease());
    long counterTtl = raw.pttl(keys.fence());
    // The counter outlives the renewed key by the retention (what the lease key had left at the
    // counter's PEXPIRE is at most the key's PTTL read before it).
    assertTrue(counterTtl > leaseTtl && counterTtl <= longer.plus(RETENTION).toMillis(),
        "counter PTTL " + counterTtl + " against the key's " + leaseTtl);
    InspectOutcome.Held held = assertInstanceOf(InspectOutcome.Held.class,
        adapter.inspect(new LeaseInspection("orders", ResourceDigests.sha256("order-0"), attempt)));
    assertEquals(handle.fencingToken(), held.fencingToken());
    handle.release();
  }

  @Test
  void counter_theCounterNeverExpires() {
    RedisLeaseAdapter adapter = adapter("counted", FenceMode.COUNTER);
    LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class,
        adapter.tryAcquire(request(adapter.newAttempt("op"), 0, TTL))).handle();
    assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(TTL));
    handle.release();
    LeaseKeys keys = adapter.keys("orders", ResourceDigests.sha256("order-0"));
    assertEquals(-1L, raw.pttl(keys.fence()), "a plain counter is the only memory of the tokens issued");
  }

  /** The keys matching {@code pattern}; SCAN never returns a key whose expiry the server clock has passed. */
  static List<String> keys(String pattern) {
    List<String> found = new ArrayList<>();
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      var page = raw.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1_000));
      found.addAll(page.getKeys());
      cursor = page;
    } while (!cursor.isFinished());
    return found;
  }

  static long serverMicros() {
    List<String> time = raw.time();
    return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
  }

  /** Waits until the server's clock reads at least {@code micros}: the evidence, not a sleep, decides. */
  static void awaitServerMicros(long micros) {
    long left;
    while ((left = micros - serverMicros()) > 0) {
      try {
        Thread.sleep(Math.max(1, left / 1_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for the server clock", e);
      }
    }
  }
}
