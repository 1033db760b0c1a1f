package dev.leasehold.testkit.lease;

import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseRunner;
import dev.leasehold.lease.LeaseWatchdog;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * How a chain makes the library's own callers of the port ({@link Supervision}): the watchdog on
 * the chain's scheduler and client clock, and the runner over the port as the chain mirrors it.
 * The library's own ({@link #LIBRARY}) unless a test plants a defect in them, as a
 * {@link PortFactory} does in the adapter.
 */
public interface Callers {
  /** A watchdog that runs its renewals on {@code executor} and reads time from {@code monotonicNanos}. */
  LeaseWatchdog watchdog(ScheduledExecutorService executor, LongSupplier monotonicNanos);

  /** A runner over {@code port} (every call it makes is the chain's) with {@code watchdog}. */
  LeaseRunner runner(DistributedLeasePort port, LeaseWatchdog watchdog);

  /** The library's watchdog and runner, as an application builds them. */
  Callers LIBRARY = new Callers() {
    @Override
    public LeaseWatchdog watchdog(ScheduledExecutorService executor, LongSupplier monotonicNanos) {
      return LeaseWatchdog.builder().executor(executor).monotonicNanos(monotonicNanos).build();
    }

    @Override
    public LeaseRunner runner(DistributedLeasePort port, LeaseWatchdog watchdog) {
      return new LeaseRunner(port, watchdog, false, null);
    }
  };
}
