package dev.leasehold.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.testkit.redis.RedisServerExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider on a real server, as two scheduler nodes use it: each with its own client, the same
 * lock names. What is judged is what the server holds (the lease key and its PTTL), never how long
 * a thread took.
 */
class LeaseholdLockProviderIntegrationTests {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension("shedlock-it");

  /** A ShedLock name as users write them, which no purpose would accept as it is. */
  private static final String NAME = "reportJob_daily";

  private final List<RedisLeases> clients = new ArrayList<>();
  private LeaseholdLockProvider node1;
  private LeaseholdLockProvider node2;

  @BeforeEach
  void twoNodes() {
    REDIS.commands().flushall();
    node1 = new LeaseholdLockProvider(client().port());
    node2 = new LeaseholdLockProvider(client().port());
  }

  private RedisLeases client() {
    RedisLeases leases = RedisLeases.builder(REDIS.uri()).build();
    clients.add(leases);
    return leases;
  }

  @AfterEach
  void close() {
    clients.forEach(RedisLeases::close);
  }

  private static LockConfiguration config(Duration atMost, Duration atLeast) {
    return new LockConfiguration(Instant.now(), NAME, atMost, atLeast);
  }

  /** The lease key of {@link #NAME}, read behind the provider; empty once it is gone. */
  private static Optional<String> leaseKey() {
    List<String> keys = REDIS.commands().keys("*{shedlock:" + ResourceDigests.sha256(NAME) + "}");
    return keys.isEmpty() ? Optional.empty() : Optional.of(keys.get(0));
  }

  private static long pttl() {
    return leaseKey().map(k -> REDIS.commands().pttl(k)).orElse(-2L);
  }

  @Test
  void aLockHeldByOneNode_isRefusedToTheOther_untilUnlocked() {
    SimpleLock held = node1.lock(config(Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
    long pttl = pttl();
    assertTrue(pttl > 25_000 && pttl <= 30_000, "lockAtMostFor is the lease's TTL: PTTL " + pttl);

    assertEquals(Optional.empty(), node2.lock(config(Duration.ofSeconds(30), Duration.ZERO)));

    held.unlock();
    assertEquals(Optional.empty(), leaseKey(), "unlock after lockAtLeastFor releases the lease");
    SimpleLock taken = node2.lock(config(Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
    taken.unlock();
  }

  @Test
  void anUnlockBeforeLockAtLeastFor_keepsTheLeaseUntilItHasPassed() throws InterruptedException {
    SimpleLock held = node1.lock(config(Duration.ofSeconds(30), Duration.ofSeconds(2))).orElseThrow();
    held.unlock();

    long pttl = pttl();
    assertTrue(pttl > 0 && pttl <= 2_000, "kept for what is left of lockAtLeastFor, not 30 s: PTTL " + pttl);
    assertEquals(Optional.empty(), node2.lock(config(Duration.ofSeconds(30), Duration.ZERO)));

    // The server lets the key go at its expiry: then the other node takes the lock.
    awaitGone();
    node2.lock(config(Duration.ofSeconds(30), Duration.ZERO)).orElseThrow().unlock();
  }

  @Test
  void extend_renewsForTheNewLockAtMostFor_andEndsTheOldLockObject() {
    SimpleLock first = node1.lock(config(Duration.ofSeconds(2), Duration.ZERO)).orElseThrow();
    SimpleLock extended = first.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();

    long pttl = pttl();
    assertTrue(pttl > 25_000, "extended to the new lockAtMostFor: PTTL " + pttl);
    assertThrows(IllegalStateException.class, first::unlock);
    assertEquals(Optional.empty(), node2.lock(config(Duration.ofSeconds(30), Duration.ZERO)));

    extended.unlock();
    assertEquals(Optional.empty(), leaseKey());
  }

  @Test
  void extendingALeaseThatIsGone_givesNoLock() {
    SimpleLock held = node1.lock(config(Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
    REDIS.commands().del(leaseKey().orElseThrow());

    assertEquals(Optional.empty(), held.extend(Duration.ofSeconds(30), Duration.ZERO));
  }

  @Test
  void theTaskReadsItsFencingToken_whichRisesFromRunToRun() {
    DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(node1);
    List<OptionalLong> seen = new ArrayList<>();
    executor.executeWithLock((Runnable) () -> seen.add(LeaseholdLockProvider.fencingToken()),
        config(Duration.ofSeconds(30), Duration.ZERO));
    new DefaultLockingTaskExecutor(node2).executeWithLock(
        (Runnable) () -> seen.add(LeaseholdLockProvider.fencingToken()), config(Duration.ofSeconds(30), Duration.ZERO));

    assertEquals(2, seen.size(), "both runs took the lock");
    assertTrue(seen.get(0).isPresent() && seen.get(1).isPresent(), "tokens: " + seen);
    assertTrue(seen.get(1).getAsLong() > seen.get(0).getAsLong(), "tokens: " + seen);
    assertFalse(LeaseholdLockProvider.fencingToken().isPresent(), "no token outside a locked task");
  }

  private static void awaitGone() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (leaseKey().isPresent()) {
      assertTrue(System.nanoTime() < deadline, "the kept lease never expired");
      Thread.sleep(20);
    }
  }
}
