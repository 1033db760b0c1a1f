package dev.leasehold.bench.scale;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.testkit.redis.RedisCluster;
import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One Cluster primary stopped (SIGSTOP by PID) while Leasehold's watchdog keeps M leases over all
 * three primaries: how late the renewals of the leases on the other primaries were sent during
 * the stall, and how often each lease on the stopped primary was reported lost. The stall is
 * longer than the TTL, so every lease on the stopped primary must be reported, once; the cluster's
 * node timeout must be longer than the stall, so that nothing fails over.
 *
 * <p>This class is threadsafe; {@link #run} is called from one thread.
 */
final class StalledPrimaryScale {
  /**
   * @param lateness how late the renewals of leases on the healthy primaries were sent during the stall
   * @param healthyReported leases on the healthy primaries reported lost (must be 0)
   * @param reportedOnce leases on the stopped primary reported exactly once
   * @param reportedOtherwise leases on the stopped primary reported never or more than once (must be 0)
   */
  record Result(int leases, Duration ttl, Duration stall, int onStopped, Percentiles lateness, int healthyReported,
      int reportedOnce, int reportedOtherwise) {}

  private StalledPrimaryScale() {}

  static Result run(RedisCluster cluster, int leases, Duration ttl, Duration stall) throws InterruptedException {
    RedisProcess stopped = cluster.primaryOf(0);
    ConcurrentLinkedQueue<Long> lateness = new ConcurrentLinkedQueue<>();
    Map<LeaseHandle, AtomicInteger> reports = new ConcurrentHashMap<>();
    List<LeaseHandle> onStopped = new ArrayList<>();
    List<LeaseHandle> healthy = new ArrayList<>();
    List<LeaseWatchdog.Registration> registrations = new ArrayList<>();
    try (RedisLeases client = RedisLeases.builder(cluster.seedUri()).cluster().namespace("scale-stall")
        .maxWatchdogRegistrations(Math.max(leases, LeaseWatchdog.DEFAULT_MAX_REGISTRATIONS)).build()) {
      String run = UUID.randomUUID().toString();
      for (int i = 0; i < leases; i++) {
        String digest = ResourceDigests.sha256("stall:" + run + ":" + i);
        AcquireOutcome outcome = client.port().tryAcquire(LeaseRequest.once(LeaseholdLibrary.PURPOSE, digest, ttl,
            client.newAttempt("stall-" + i)));
        if (!(outcome instanceof AcquireOutcome.Acquired acquired)) {
          throw new IllegalStateException("acquire: " + outcome);
        }
        int slot = SlotHash.getSlot(client.keys(LeaseholdLibrary.PURPOSE, digest).lease());
        boolean stalls = cluster.primaryOf(slot).port() == stopped.port();
        // Only the healthy leases' lateness is measured: the stopped primary's renewals wait by design.
        TimedHandle timed = new TimedHandle(acquired.handle(), ttl, stalls ? late -> {} : lateness::add);
        (stalls ? onStopped : healthy).add(timed);
        reports.put(timed, new AtomicInteger());
        registrations.add(client.watchdog().watch(timed, ttl, loss -> reports.get(loss.handle()).incrementAndGet()));
      }
      // Two renewal periods before the stall, so that every lease is renewed on its own cadence.
      Thread.sleep(ttl.dividedBy(3).multipliedBy(2).toMillis());
      lateness.clear();
      stopped.pause();
      try {
        Thread.sleep(stall.toMillis());
      } finally {
        stopped.resume();
      }
      long[] late = lateness.stream().mapToLong(Long::longValue).toArray();
      // The reports of the stopped primary's leases come at most a command timeout after the stall.
      Thread.sleep(RedisLeases.DEFAULT_COMMAND_TIMEOUT.toMillis() * 2);
      registrations.forEach(LeaseWatchdog.Registration::cancel);
      int once = (int) onStopped.stream().filter(h -> reports.get(h).get() == 1).count();
      return new Result(leases, ttl, stall, onStopped.size(), Percentiles.of(late),
          (int) healthy.stream().filter(h -> reports.get(h).get() > 0).count(), once, onStopped.size() - once);
    }
  }
}
