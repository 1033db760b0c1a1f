package dev.leasehold.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.testkit.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The registry on a real server, as two application instances use it (each with its own client and
 * registry, the same keys). What is judged is what the server holds, and what each call returned;
 * never how long a thread took.
 */
class LeaseholdLockRegistryIntegrationTests {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension("registry-it");

  private static final String KEY = "orders:42";

  private final List<RedisLeases> clients = new ArrayList<>();
  private LeaseholdLockRegistry instance1;
  private LeaseholdLockRegistry instance2;

  @BeforeEach
  void twoInstances() {
    REDIS.commands().flushall();
    instance1 = new LeaseholdLockRegistry(client().port());
    instance2 = new LeaseholdLockRegistry(client().port());
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

  /** The lease key of {@link #KEY}, read behind the registry; empty once it is gone. */
  private static Optional<String> leaseKey() {
    List<String> keys = REDIS.commands().keys("*{lock-registry:" + ResourceDigests.sha256(KEY) + "}");
    return keys.isEmpty() ? Optional.empty() : Optional.of(keys.get(0));
  }

  @Test
  void aLockHeldByOneInstance_isRefusedToTheOther_untilUnlocked() {
    Lock held = instance1.obtain(KEY);
    assertTrue(held.tryLock());
    assertTrue(leaseKey().isPresent(), "the hold is a lease on the server");

    assertFalse(instance2.obtain(KEY).tryLock());

    held.unlock();
    assertEquals(Optional.empty(), leaseKey(), "unlock releases the lease");
    Lock other = instance2.obtain(KEY);
    assertTrue(other.tryLock());
    other.unlock();
  }

  @Test
  void oneLockPerKeyPerRegistry_reentrantForItsHolder() {
    Lock lock = instance1.obtain(KEY);
    assertSame(lock, instance1.obtain(KEY));

    lock.lock();
    lock.lock();
    lock.unlock();
    assertTrue(leaseKey().isPresent(), "an inner unlock keeps the hold");
    assertFalse(instance2.obtain(KEY).tryLock());
    lock.unlock();
    assertEquals(Optional.empty(), leaseKey(), "the outermost unlock releases it");
  }

  @Test
  void onlyTheHoldingThreadMayUnlock() throws Exception {
    Lock lock = instance1.obtain(KEY);
    lock.lock();

    Throwable other = CompletableFuture.supplyAsync(() -> {
      try {
        lock.unlock();
        return null;
      } catch (RuntimeException e) {
        return e;
      }
    }).get(10, TimeUnit.SECONDS);

    assertTrue(other instanceof IllegalStateException, "another thread's unlock: " + other);
    assertTrue(leaseKey().isPresent(), "the lock is still held");
    lock.unlock();
  }

  @Test
  void tryLockWithATimeout_waitsForTheHolderToRelease() throws Exception {
    Lock held = instance1.obtain(KEY);
    held.lock();
    REDIS.commands().configResetstat();
    CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
      Lock lock = instance2.obtain(KEY);
      try {
        boolean got = lock.tryLock(30, TimeUnit.SECONDS);
        if (got) {
          lock.unlock();
        }
        return got;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    });
    // The waiter is in the wait loop once the server has run its first try (every script call
    // since the counters were reset is the waiter's).
    awaitScriptCalls(1);
    held.unlock();

    assertTrue(waiter.get(30, TimeUnit.SECONDS), "the waiter got the lock after the release");
  }

  @Test
  void theFencingTokenIsReachableFromTheLock_andRisesFromHoldToHold() {
    LeaseholdLockRegistry.LeaseholdLock first = instance1.obtain(KEY);
    assertFalse(first.fencingToken().isPresent(), "no token without a hold");
    first.lock();
    long token1 = first.fencingToken().orElseThrow();
    first.unlock();

    LeaseholdLockRegistry.LeaseholdLock second = instance2.obtain(KEY);
    second.lock();
    long token2 = second.fencingToken().orElseThrow();
    second.unlock();

    assertTrue(token2 > token1, token1 + " then " + token2);
  }

  @Test
  void anUnlockAfterTheLeaseExpired_saysTheHoldMayHaveOverlapped() throws InterruptedException {
    LeaseholdLockRegistry.LeaseholdLock lock = instance1.obtain(KEY);
    lock.lock(Duration.ofMillis(200));
    awaitGone();

    assertThrows(ConcurrentModificationException.class, lock::unlock);
    assertTrue(instance2.obtain(KEY).tryLock(), "the local lock was released too");
  }

  @Test
  void renewLock_extendsTheHold() {
    Lock lock = instance1.obtain(KEY);
    lock.lock();
    instance1.renewLock(KEY, Duration.ofMinutes(5));

    long pttl = REDIS.commands().pttl(leaseKey().orElseThrow());
    assertTrue(pttl > Duration.ofMinutes(4).toMillis(), "PTTL after the renewal: " + pttl);
    assertThrows(IllegalStateException.class, () -> instance2.renewLock(KEY), "a registry that does not hold it");
    lock.unlock();
  }

  @Test
  void expireUnusedOlderThan_forgetsFreeLocks_andKeepsHeldOnes() {
    Lock free = instance1.obtain("free");
    Lock held = instance1.obtain(KEY);
    held.lock();

    instance1.expireUnusedOlderThan(-1);

    assertNotSame(free, instance1.obtain("free"));
    assertSame(held, instance1.obtain(KEY));
    held.unlock();
  }

  private static void awaitGone() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (leaseKey().isPresent()) {
      assertTrue(System.nanoTime() < deadline, "the lease never expired");
      Thread.sleep(20);
    }
  }

  /** Waits until the server has run at least {@code calls} scripts since its counters were reset. */
  private static void awaitScriptCalls(long calls) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (scriptCalls() < calls) {
      assertTrue(System.nanoTime() < deadline, "the server never ran " + calls + " script(s)");
      Thread.sleep(5);
    }
  }

  private static long scriptCalls() {
    long calls = 0;
    for (String line : REDIS.commands().info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:calls=") || line.startsWith("cmdstat_eval:calls=")) {
        calls += Long.parseLong(line.substring(line.indexOf('=') + 1, line.indexOf(',')));
      }
    }
    return calls;
  }
}
