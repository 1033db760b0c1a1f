package dev.leasehold.peers;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.blackbox.LockLibrary.Endpoint;
import dev.leasehold.testkit.redis.RedisServer;
import dev.leasehold.testkit.redis.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * What Redisson's renewal retried after unlock (the {@code NoSendAfterEnd} finding) does to the
 * next hold: a client cut off while its watchdog renews, that unlocks when it is back and at once
 * locks again from the same thread with a lease longer than the watchdog timeout, has that lease
 * cut to the watchdog timeout by the late renewal ({@code pexpire <lock> <watchdog timeout>}), and a
 * second client is granted the lock while the first still holds it by its lease. Judged on
 * instants measured around the calls and on the key's time to live read from the server.
 */
class RedissonLateRenewalIntegrationTests {
  static final Duration LEASE = Duration.ofSeconds(5);
  /** How long the first client is cut off: more than the command timeout, so a renewal times out. */
  static final Duration CUT = Duration.ofMillis(400);
  static final Duration COMMAND_TIMEOUT = Duration.ofMillis(200);
  /** Runs of the scenario; the race needs a renewal in flight at the cut, which the watchdog's cadence all but assures. */
  static final int RUNS = 5;

  /** One run's evidence: when the first client's lease began, when the second was granted, the lowest TTL seen between. */
  record Overlap(long firstLeaseStart, long secondGranted, long lowestPttlMs) {
    long secondGrantedAfterMs() {
      return TimeUnit.NANOSECONDS.toMillis(secondGranted - firstLeaseStart);
    }

    @Override
    public String toString() {
      return "second client granted " + secondGrantedAfterMs() + " ms into the first's lease, whose key had " + lowestPttlMs
          + " ms left at the lowest";
    }
  }

  @Test
  void aRenewalRetriedAfterUnlock_shortensTheSameThreadsNextLease_andASecondClientIsGrantedInsideIt() throws Exception {
    try (RedisServer server = RedisServer.start("redisson-late-renewal")) {
      List<Overlap> overlaps = new ArrayList<>();
      for (int i = 0; i < RUNS; i++) {
        Overlap overlap = once(server.uri().getPort(), "late-renewal-" + i);
        if (overlap != null) {
          overlaps.add(overlap);
        }
      }
      System.out.println("Redisson's late renewal: two holders in " + overlaps.size() + " of " + RUNS + " runs: " + overlaps);
      assertFalse(overlaps.isEmpty(), "the second client was never granted inside the first's " + LEASE.toMillis()
          + " ms lease in " + RUNS + " runs: Redisson no longer shortens it");
      for (Overlap overlap : overlaps) {
        assertTrue(overlap.lowestPttlMs() <= RedissonPort.WATCHDOG_TIMEOUT.toMillis(),
            () -> "granted inside the lease without the key's TTL cut to the watchdog timeout first: " + overlap);
      }
    }
  }

  /** One run on lock {@code name}; the overlap if the second client was granted inside the first's lease. */
  private static Overlap once(int serverPort, String name) throws InterruptedException {
    RedisClient direct = RedisClient.create("redis://127.0.0.1:" + serverPort);
    try (TcpProxy proxy = TcpProxy.start("redisson-first", serverPort);
        var connection = direct.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      RedissonClient first = Redisson.create(RedissonPort.config(new Endpoint("127.0.0.1", proxy.port(), COMMAND_TIMEOUT)));
      RedissonClient second = Redisson.create(RedissonPort.config(new Endpoint("127.0.0.1", serverPort, COMMAND_TIMEOUT)));
      try {
        RLock lock = first.getLock(name);
        lock.lock();   // watchdog mode: renewed every third of the watchdog timeout
        Thread.sleep(RedissonPort.WATCHDOG_TIMEOUT.toMillis() / 2);
        proxy.blackhole(true);
        Thread.sleep(CUT.toMillis());
        proxy.blackhole(false);
        try {
          lock.unlock();
        } catch (IllegalMonitorStateException expiredDuringTheCut) {
          // The key expired while the client was cut off: nothing to unlock.
        }
        long leaseStart = System.nanoTime();
        if (!lock.tryLock(0, LEASE.toMillis(), TimeUnit.MILLISECONDS)) {
          return null;
        }
        long lowestPttl = Long.MAX_VALUE;
        RLock other = second.getLock(name);
        // Up to half the lease: a grant in that time overlaps the first client's hold by seconds.
        while (System.nanoTime() - leaseStart < LEASE.toNanos() / 2) {
          long pttl = redis.pttl(name);
          if (pttl >= 0) {
            lowestPttl = Math.min(lowestPttl, pttl);
          }
          if (other.tryLock(0, LEASE.toMillis(), TimeUnit.MILLISECONDS)) {
            return new Overlap(leaseStart, System.nanoTime(), lowestPttl);
          }
          Thread.sleep(20);
        }
        return null;
      } finally {
        first.shutdown(0, 2, TimeUnit.SECONDS);
        second.shutdown(0, 2, TimeUnit.SECONDS);
      }
    } finally {
      direct.shutdown();
    }
  }
}
