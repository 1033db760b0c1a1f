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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

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

  /** A growing array of samples. Threadsafe. */
  private static final class LongSamples {
    private long[] samples = new long[1024];
    private int count;

    synchronized void add(long sample) {
      if (count == samples.length) {
        samples = Arrays.copyOf(samples, count * 2);
      }
      samples[count++] = sample;
    }

    synchronized long[] drain() {
      long[] drained = Arrays.copyOf(samples, count);
      count = 0;
      return drained;
    }
  }

  private static final class LeaseholdClient implements Client {
    private final RedisLeases leases;
    private final DistributedLeasePort port;
    private final AtomicLong operations = new AtomicLong();
    /** Lateness samples in ns, unboxed: the instrument must not cost what it measures. Guarded by itself. */
    private final LongSamples lateness = new LongSamples();
    private final LongConsumer toLateness = lateness::add;
    /** Guarded by itself; not copy-on-write, which made keeping 100,000 leases quadratic. */
    private final List<TimedHandle> kept = new ArrayList<>();

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
      TimedHandle timed = new TimedHandle(handle, ttl, toLateness);
      // A lost lease needs no listener here: its release at the end of the run fails.
      LeaseWatchdog.Registration registration = leases.watchdog().watch(timed, ttl, loss -> {});
      synchronized (kept) {
        kept.add(timed);
      }
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
      synchronized (kept) {
        return kept.stream().mapToLong(TimedHandle::renewals).sum();
      }
    }

    @Override
    public long[] drainRenewalLateness() {
      return lateness.drain();
    }

    @Override
    public void close() {
      leases.close();
    }
  }
}
