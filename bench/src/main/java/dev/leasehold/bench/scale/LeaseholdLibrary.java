package dev.leasehold.bench.scale;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.RedisLeases;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Leasehold through {@link RedisLeases}, the production entry point, with its defaults (release
 * signals on, fencing token in {@code CLOCK_FLOOR} mode); kept leases are renewed by its
 * {@link LeaseWatchdog}.
 *
 * <p>This class is threadsafe.
 */
final class LeaseholdLibrary implements ScaleLibrary {
  static final String PURPOSE = "scale";

  @Override
  public String name() {
    return "Leasehold";
  }

  @Override
  public Client open(List<String> servers, boolean cluster, int maxHeld) {
    RedisLeases.Builder builder = RedisLeases.builder(RedisURI.create(servers.get(0)))
        .maxWatchdogRegistrations(Math.max(maxHeld, LeaseWatchdog.DEFAULT_MAX_REGISTRATIONS));
    if (cluster) {
      builder.cluster();
    }
    return new LeaseholdClient(builder.build());
  }

  private static final class LeaseholdClient implements Client {
    private final RedisLeases leases;
    private final DistributedLeasePort port;
    private final AtomicLong operations = new AtomicLong();
    private final ConcurrentLinkedQueue<Long> lateness = new ConcurrentLinkedQueue<>();
    private final List<TimedHandle> kept = new CopyOnWriteArrayList<>();

    LeaseholdClient(RedisLeases leases) {
      this.leases = leases;
      this.port = leases.port();
    }

    @Override
    public Held acquire(String resource, Duration ttl, Duration wait) throws InterruptedException {
      String digest = ResourceDigests.sha256(resource);
      var attempt = port.newAttempt("scale-" + operations.incrementAndGet());
      AcquireOutcome outcome = port.tryAcquire(new LeaseRequest(PURPOSE, digest, wait, ttl, attempt));
      if (outcome instanceof AcquireOutcome.Acquired acquired) {
        return () -> released(acquired.handle().release());
      }
      if (Thread.interrupted()) {
        // The wait loop returns its last outcome with the flag set when interrupted.
        throw new InterruptedException("interrupted while acquiring");
      }
      if (outcome instanceof AcquireOutcome.Contended) {
        return null;
      }
      throw new IllegalStateException("acquire: " + outcome);
    }

    @Override
    public Held keep(String resource, Duration ttl) {
      LeaseHandle handle;
      String digest = ResourceDigests.sha256(resource);
      AcquireOutcome outcome = port.tryAcquire(
          LeaseRequest.once(PURPOSE, digest, ttl, port.newAttempt("keep-" + operations.incrementAndGet())));
      if (!(outcome instanceof AcquireOutcome.Acquired acquired)) {
        throw new IllegalStateException("keep: " + outcome);
      }
      handle = acquired.handle();
      TimedHandle timed = new TimedHandle(handle, ttl, lateness::add);
      // A lost lease needs no listener here: its release at the end of the run fails.
      LeaseWatchdog.Registration registration = leases.watchdog().watch(timed, ttl, loss -> {});
      kept.add(timed);
      return () -> {
        registration.cancel();
        released(handle.release());
      };
    }

    private static void released(ReleaseOutcome outcome) {
      if (!(outcome instanceof ReleaseOutcome.Released)) {
        throw new IllegalStateException("release: " + outcome);
      }
    }

    @Override
    public long renewals() {
      return kept.stream().mapToLong(TimedHandle::renewals).sum();
    }

    @Override
    public long[] drainRenewalLateness() {
      List<Long> drained = new ArrayList<>();
      for (Long sample = lateness.poll(); sample != null; sample = lateness.poll()) {
        drained.add(sample);
      }
      return drained.stream().mapToLong(Long::longValue).toArray();
    }

    @Override
    public void close() {
      leases.close();
    }
  }
}
