package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseException;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The assembly ({@link RedisLeases}): waiting with release signals, the watchdog and withLease, on a real server. */
@SuppressWarnings("unchecked") // assertInstanceOf on the generic LeaseResult records
class RedisLeasesIntegrationTests {
  static final String PURPOSE = "assembly";
  static final AtomicInteger RESOURCES = new AtomicInteger();

  static RedisServerExtension redis;
  static RedisCommands<String, String> raw;

  String digest;

  @BeforeAll
  static void startServer() {
    redis = RedisServerExtension.start("assembly-it");
    raw = redis.commands();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @BeforeEach
  void newResource() {
    digest = ResourceDigests.sha256("resource-" + RESOURCES.incrementAndGet());
  }

  RedisLeases.Builder leases() {
    return RedisLeases.builder(redis.uri()).namespace("it-assembly").commandTimeout(Duration.ofMillis(500));
  }

  static void await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("condition not met within " + timeout);
      }
      Thread.sleep(10);
    }
  }

  @Test
  void handoffOnRelease_wakesTheWaiterBySignal_wellBeforeTheHoldersTtl() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (RedisLeases leases = leases().build()) {
      // Given a holder with a long TTL and a waiter with a long wait, asleep on the release channel
      LeaseHandle holder = assertInstanceOf(AcquireOutcome.Acquired.class, leases.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(30), leases.newAttempt("holder")))).handle();
      LeaseAttempt waiterAttempt = leases.newAttempt("waiter");
      Future<AcquireOutcome> waiter = pool.submit(() -> leases.port().tryAcquire(
          new LeaseRequest(PURPOSE, digest, Duration.ofSeconds(25), Duration.ofSeconds(10), waiterAttempt)));
      ReleaseSignals signals = leases.releaseSignals().orElseThrow();
      String channel = leases.keys(PURPOSE, digest).releaseChannel();
      // The server itself confirms the subscription, so the release cannot slip in before it.
      await(() -> raw.pubsubNumsub(channel).getOrDefault(channel, 0L) == 1, Duration.ofSeconds(5));
      // When
      long released = System.nanoTime();
      assertInstanceOf(ReleaseOutcome.Released.class, holder.release());
      AcquireOutcome outcome = waiter.get(10, TimeUnit.SECONDS);
      long handoff = System.nanoTime() - released;
      // Then: the waiter acquired, woken by the signal (or, released before it slept again, by its
      // subscription) rather than by its ~15-30 s retryAfter
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, outcome).handle();
      assertEquals(0, signals.timedWakeups(), "no sleep ran its full length");
      assertTrue(handoff < Duration.ofSeconds(5).toNanos(), "handoff took " + Duration.ofNanos(handoff));
      assertEquals(waiterAttempt.ownership(), raw.get(leases.keys(PURPOSE, digest).lease()));
      assertEquals(0, signals.activeChannels(), "unsubscribed once nobody waits");
      handle.release();
      await(() -> raw.pubsubNumsub(channel).getOrDefault(channel, 0L) == 0, Duration.ofSeconds(5));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void watchdogRenewsAcrossManyTtls() throws InterruptedException {
    try (RedisLeases leases = leases().build()) {
      Duration ttl = Duration.ofMillis(300);
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, leases.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, ttl, leases.newAttempt("op")))).handle();
      List<LeaseWatchdog.LeaseLoss> losses = new CopyOnWriteArrayList<>();
      LeaseWatchdog.Registration registration = leases.watchdog().watch(handle, ttl, losses::add);
      long end = System.nanoTime() + ttl.multipliedBy(8).toNanos();
      while (System.nanoTime() - end < 0) {
        assertEquals(LeaseState.ACTIVE, handle.state());
        Thread.sleep(25);
      }
      long pttl = raw.pttl(leases.keys(PURPOSE, digest).lease());
      assertTrue(pttl > 0 && pttl <= ttl.toMillis(), "the server still holds it: " + pttl);
      assertTrue(registration.renewals() >= 12, "renewals: " + registration.renewals());
      assertTrue(losses.isEmpty(), losses.toString());
      assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
    }
  }

  @Test
  void watchdogReportsLossOnce_whenTheKeyIsDeletedFromOutside_andLogsNoOwnerToken() throws InterruptedException {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    LeaseAttempt attempt;
    List<LeaseWatchdog.LeaseLoss> losses = new CopyOnWriteArrayList<>();
    try (RedisLeases leases = leases().build()) {
      Duration ttl = Duration.ofMillis(300);
      attempt = leases.newAttempt("op");
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, leases.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, ttl, attempt))).handle();
      leases.watchdog().watch(handle, ttl, losses::add);
      raw.del(leases.keys(PURPOSE, digest).lease());
      await(() -> !losses.isEmpty(), Duration.ofSeconds(10));
      Thread.sleep(ttl.multipliedBy(2).toMillis());
      assertEquals(LeaseState.LOST, handle.state());
    } finally {
      System.setErr(err);
    }
    assertEquals(1, losses.size(), "exactly once: " + losses);
    assertEquals(LeaseState.LOST, losses.get(0).state());
    String logs = captured.toString(StandardCharsets.UTF_8);
    assertTrue(logs.contains("is LOST"), "the loss is logged: " + logs);
    assertFalse(logs.contains(attempt.ownerToken()), "no owner token in the logs");
    assertFalse(losses.get(0).toString().contains(attempt.ownerToken()));
  }

  @Test
  void withLease_alwaysReleases_onException_andMeters() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (RedisLeases leases = leases().meterRegistry(registry).build()) {
      LeaseRequest request = new LeaseRequest(PURPOSE, digest, Duration.ofSeconds(1), Duration.ofSeconds(5),
          leases.newAttempt("op"));
      LeaseResult<Object> result = leases.withLease(request, ctx -> {
        assertTrue(raw.exists(leases.keys(PURPOSE, digest).lease()) == 1);
        throw new IllegalStateException("work failed");
      });
      LeaseResult.Failed<Object> failed = assertInstanceOf(LeaseResult.Failed.class, result);
      assertInstanceOf(IllegalStateException.class, failed.exception());
      assertInstanceOf(ReleaseOutcome.Released.class, failed.release());
      assertEquals(0, raw.exists(leases.keys(PURPOSE, digest).lease()));
      assertEquals(1, registry.get("leasehold.results").tag("result", "Failed").counter().count());
      assertEquals(1, registry.get("leasehold.outcomes").tag("operation", "release").tag("outcome", "Released")
          .counter().count());
    }
  }

  @Test
  void withLease_cancelsTheWork_whenTheLeaseIsLost() {
    try (RedisLeases leases = leases().build()) {
      LeaseRequest request = new LeaseRequest(PURPOSE, digest, Duration.ZERO, Duration.ofMillis(300), leases.newAttempt("op"));
      LeaseResult<String> result = leases.withLease(request, ctx -> {
        raw.del(leases.keys(PURPOSE, digest).lease());
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (!ctx.isCancelled() && System.nanoTime() < end) {
          Thread.sleep(5);
        }
        return "stopped";
      });
      LeaseResult.LeaseLostDuringWork<String> lost = assertInstanceOf(LeaseResult.LeaseLostDuringWork.class, result);
      assertEquals(LeaseState.LOST, lost.state());
    }
  }

  @Test
  void closeIsIdempotent_neverClosesAnInjectedClient_andLeaksNoThreads() throws InterruptedException {
    long watchdogs = threads("leasehold-watchdog-");
    long lettuce = threads("lettuce-");
    for (int i = 0; i < 3; i++) {
      RedisLeases leases = leases().build();
      leases.withLease(new LeaseRequest(PURPOSE, digest, Duration.ZERO, Duration.ofSeconds(2), leases.newAttempt("op-" + i)),
          ctx -> "ok");
      leases.close();
      leases.close();
      assertThrows(LeaseException.class, () -> leases.withLease(
          new LeaseRequest(PURPOSE, digest, Duration.ZERO, Duration.ofSeconds(2), leases.newAttempt("late")), ctx -> "no"));
    }
    await(() -> threads("leasehold-watchdog-") <= watchdogs, Duration.ofSeconds(10));
    await(() -> threads("lettuce-") <= lettuce, Duration.ofSeconds(10));

    RedisClient injected = RedisClient.create(redis.uri());
    injected.setOptions(LettuceLeaseGateway.clientOptions(Duration.ofMillis(500)));
    try {
      RedisLeases leases = RedisLeases.builder(injected).namespace("it-assembly").build();
      assertInstanceOf(LeaseResult.Completed.class, leases.withLease(
          new LeaseRequest(PURPOSE, digest, Duration.ZERO, Duration.ofSeconds(2), leases.newAttempt("op")), ctx -> "ok"));
      leases.close();
      try (StatefulRedisConnection<String, String> c = injected.connect()) {
        assertEquals("PONG", c.sync().ping(), "the injected client still works");
      }
    } finally {
      injected.shutdown();
    }
  }

  @Test
  void settingsAreCheckedBeforeConnecting() {
    assertThrows(IllegalArgumentException.class, () -> RedisLeases.builder("redis://127.0.0.1:1").namespace("Bad Name").build());
    assertThrows(IllegalArgumentException.class,
        () -> RedisLeases.builder("redis://127.0.0.1:1").commandTimeout(Duration.ZERO).build());
    LeaseException refused = assertThrows(LeaseException.class,
        () -> RedisLeases.builder("redis://127.0.0.1:1").commandTimeout(Duration.ofMillis(200)).build());
    assertTrue(refused.getCause() instanceof GatewayException g && g.failure() == GatewayException.Failure.NOT_SENT,
        String.valueOf(refused.getCause()));
  }

  static long threads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
  }
}
