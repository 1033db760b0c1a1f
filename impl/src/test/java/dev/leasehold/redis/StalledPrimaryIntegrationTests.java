package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisClusterExtension;
import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One stalled Cluster primary (SIGSTOP) delays only the leases it holds: the watchdog keeps the
 * leases on the other primaries renewed through the stall, and reports each lease of the stalled
 * primary exactly once. The cluster's node timeout is longer than the stall, so nothing fails over.
 */
class StalledPrimaryIntegrationTests {
  static final Duration TTL = Duration.ofSeconds(3);
  static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
  /** Longer than the TTL: every lease of the stalled primary runs out. */
  static final Duration STALL = Duration.ofSeconds(4);
  static final int LEASES = 150;

  @RegisterExtension
  static final RedisClusterExtension CLUSTER = new RedisClusterExtension("stall-it", "--cluster-node-timeout", "60000");

  @Test
  void aStalledPrimary_delaysOnlyTheLeasesItHolds() throws InterruptedException {
    RedisLeases leases = RedisLeases.builder(CLUSTER.cluster().seedUri()).cluster().namespace("stall")
        .commandTimeout(COMMAND_TIMEOUT).maxWatchdogRegistrations(LEASES).build();
    try (leases) {
      RedisProcess stalled = CLUSTER.cluster().primaryOf(0);
      List<LeaseHandle> onStalled = new ArrayList<>();
      List<LeaseHandle> elsewhere = new ArrayList<>();
      Map<LeaseHandle, AtomicInteger> reports = new ConcurrentHashMap<>();
      Map<LeaseHandle, LeaseWatchdog.Registration> watched = new ConcurrentHashMap<>();
      for (int i = 0; i < LEASES; i++) {
        String digest = ResourceDigests.sha256("stalled-" + i);
        LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, leases.port().tryAcquire(
            LeaseRequest.once("orders", digest, TTL, leases.newAttempt("op-" + i)))).handle();
        int slot = SlotHash.getSlot(leases.keys("orders", digest).lease());
        (CLUSTER.cluster().primaryOf(slot).port() == stalled.port() ? onStalled : elsewhere).add(handle);
        reports.put(handle, new AtomicInteger());
        watched.put(handle, leases.watchdog().watch(handle, TTL, loss -> reports.get(loss.handle()).incrementAndGet()));
      }
      assertTrue(onStalled.size() > 10 && elsewhere.size() > 10, onStalled.size() + " leases on the stalled primary");

      // Every lease renewed once before the stall: each node has the script cached, so the stall
      // tests the waiting and nothing else.
      long warm = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (watched.values().stream().anyMatch(r -> r.renewals() == 0) && System.nanoTime() - warm < 0) {
        Thread.sleep(20);
      }
      assertTrue(watched.values().stream().allMatch(r -> r.renewals() > 0), "every lease renewed before the stall");
      stalled.pause();
      long renewalsBefore = renewals(watched, elsewhere);
      long end = System.nanoTime() + STALL.toNanos();
      try {
        while (System.nanoTime() - end < 0) {
          for (LeaseHandle handle : elsewhere) {
            assertEquals(LeaseState.ACTIVE, handle.state(), "a lease on a healthy primary, during the stall");
          }
          Thread.sleep(50);
        }
      } finally {
        stalled.resume();
      }
      // Every lease on a healthy primary was renewed through the stall: at least once per TTL / 3 of it.
      long renewedDuring = renewals(watched, elsewhere) - renewalsBefore;
      assertTrue(renewedDuring >= 2L * elsewhere.size(), renewedDuring + " renewals of " + elsewhere.size() + " leases");
      for (LeaseHandle handle : elsewhere) {
        assertEquals(0, reports.get(handle).get(), "no loss reported for a lease on a healthy primary");
      }
      // Each lease of the stalled primary ran out during the stall: reported once, its registration
      // ended, so nothing can report it again.
      for (LeaseHandle handle : onStalled) {
        assertTrue(handle.state() == LeaseState.LOST || handle.state() == LeaseState.UNKNOWN, handle.state().toString());
        assertEquals(1, reports.get(handle).get(), "reported exactly once");
        assertTrue(!watched.get(handle).isActive(), "its registration ended");
      }
    }
  }

  /**
   * A call that finds its script gone on a healthy primary (flushed, as after a restart) runs it
   * there by its text while another primary is stalled: SCRIPT LOAD, which a cluster client sends
   * to every primary, would wait out the command timeout on the stalled one.
   */
  @Test
  void aScriptFlushedOnAHealthyPrimary_runsThereWhileAnotherStalls() {
    RedisLeases leases = RedisLeases.builder(CLUSTER.cluster().seedUri()).cluster().namespace("flushed")
        .commandTimeout(COMMAND_TIMEOUT).build();
    try (leases) {
      RedisProcess stalled = CLUSTER.cluster().primaryOf(0);
      String digest;
      int i = 0;
      do {
        digest = ResourceDigests.sha256("flushed-" + i++);
      } while (primaryOf(leases, digest).port() == stalled.port());
      RedisProcess healthy = primaryOf(leases, digest);
      stalled.pause();
      try {
        CLUSTER.cluster().commands(healthy).scriptFlush();
        AcquireOutcome outcome = leases.port().tryAcquire(
            LeaseRequest.once("orders", digest, TTL, leases.newAttempt("flushed")));
        assertInstanceOf(AcquireOutcome.Acquired.class, outcome, "acquire on a healthy primary: " + outcome);
      } finally {
        stalled.resume();
      }
    }
  }

  private static RedisProcess primaryOf(RedisLeases leases, String digest) {
    return CLUSTER.cluster().primaryOf(SlotHash.getSlot(leases.keys("orders", digest).lease()));
  }

  private static long renewals(Map<LeaseHandle, LeaseWatchdog.Registration> watched, List<LeaseHandle> handles) {
    return handles.stream().mapToLong(h -> watched.get(h).renewals()).sum();
  }
}
