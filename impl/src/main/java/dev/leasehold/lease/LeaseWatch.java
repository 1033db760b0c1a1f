package dev.leasehold.lease;

import dev.leasehold.lease.LeaseWatchdog.LeaseLoss;
import dev.leasehold.lease.LeaseWatchdog.LossListener;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link LeaseWatchdog} registration: renews one handle on the executor, one tick at a time,
 * until the handle is released, lost or unknown, the deadline passes or it is cancelled (see
 * {@link LeaseWatchdog} for what each ending means).
 *
 * <p>This class is threadsafe: a tick and {@link #cancel()} may race, and {@link #end()} lets
 * exactly one of them end the registration.
 */
final class LeaseWatch implements LeaseWatchdog.Registration, Runnable {
  // The watchdog's logger, so that one logger setting still covers everything the watchdog says.
  private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

  private final ScheduledExecutorService executor;
  private final LongSupplier monotonicNanos;
  private final Consumer<LeaseWatch> onEnd;
  private final LeaseHandle handle;
  private final Duration ttl;
  private final Long stopAt;
  private final LossListener listener;
  private final AtomicBoolean done = new AtomicBoolean();
  private final AtomicLong renewals = new AtomicLong();
  private volatile ScheduledFuture<?> next;

  /**
   * @param stopAt the deadline on {@code monotonicNanos}, or null for none
   * @param onEnd told once, by whoever ends the registration
   */
  LeaseWatch(ScheduledExecutorService executor, LongSupplier monotonicNanos, Consumer<LeaseWatch> onEnd,
      LeaseHandle handle, Duration ttl, Long stopAt, LossListener listener) {
    this.executor = executor;
    this.monotonicNanos = monotonicNanos;
    this.onEnd = onEnd;
    this.handle = handle;
    this.ttl = ttl;
    this.stopAt = stopAt;
    this.listener = listener;
  }

  /** Apart from the constructor, so that the watchdog lists this watch as live before a tick can end it. */
  void start() {
    schedule(RenewCadence.regular(ttl, handle.remainingValidity()));
  }

  private void schedule(long delayNanos) {
    if (done.get()) {
      return;
    }
    long delay = delayNanos;
    if (stopAt != null) {
      delay = Math.max(0, Math.min(delay, stopAt - monotonicNanos.getAsLong()));
    }
    try {
      next = executor.schedule(this, delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // The executor is shutting down: nothing will renew this lease any more.
      log.debug("watchdog executor refused a renewal of {}", handle);
      end();
      return;
    }
    if (done.get()) {
      next.cancel(false);
    }
  }

  @Override
  public void run() {
    try {
      tick();
    } catch (RuntimeException e) {
      // A handle must not throw, but a bug in one must not stop the others: try again soon.
      log.warn("renewing {} failed unexpectedly; retrying", handle, e);
      schedule(RenewCadence.retry(ttl, handle.remainingValidity(), null));
    }
  }

  private void tick() {
    if (done.get()) {
      return;
    }
    if (stopAt != null && monotonicNanos.getAsLong() - stopAt >= 0) {
      log.debug("watchdog deadline reached for {}; renewals stop", handle);
      end();
      return;
    }
    LeaseState before = handle.state();
    if (before == LeaseState.RELEASED) {
      end();
      return;
    }
    if (before == LeaseState.LOST) {
      report(before, "local validity ran out before the renewal");
      return;
    }
    // UNKNOWN may be the application's release in flight: renew waits for it and answers from
    // what it left (RELEASED ends quietly; a pending release gives NotActive(UNKNOWN), reported).
    RenewOutcome outcome = handle.renew(ttl);
    if (outcome instanceof RenewOutcome.Renewed r) {
      renewals.incrementAndGet();
      log.debug("renewed {}, valid for {}", handle, r.validity());
      schedule(RenewCadence.regular(ttl, r.validity()));
    } else if (outcome instanceof RenewOutcome.Lost l) {
      report(LeaseState.LOST, l.reason());
    } else if (outcome instanceof RenewOutcome.NotActive n) {
      if (n.state() == LeaseState.RELEASED) {
        end();
      } else {
        report(n.state(), "lease not active: " + n.state());
      }
    } else if (outcome instanceof RenewOutcome.Indeterminate i) {
      LeaseState now = handle.state();
      if (now == LeaseState.RELEASED) {
        end();
      } else {
        report(now == LeaseState.ACTIVE ? LeaseState.UNKNOWN : now, "renewal unanswered: " + i.reason());
      }
    } else {
      // Unavailable or Overloaded: definitely not applied, the handle is unchanged. UNKNOWN here
      // is another thread's request in flight; the next renewal settles it.
      LeaseState now = handle.state();
      if (now == LeaseState.ACTIVE || now == LeaseState.UNKNOWN) {
        Duration hint = outcome instanceof RenewOutcome.Overloaded o ? o.retryAfter() : null;
        log.debug("renewal of {} not applied ({}); retrying", handle, outcome);
        schedule(RenewCadence.retry(ttl, handle.remainingValidity(), hint));
      } else if (now == LeaseState.RELEASED) {
        end();
      } else {
        report(now, "renewals failed until the lease ran out: " + outcome);
      }
    }
  }

  private void report(LeaseState state, String reason) {
    if (!end()) {
      return;
    }
    log.warn("lease {} is {}: {}", handle, state, reason);
    try {
      listener.onLoss(new LeaseLoss(handle, state, reason));
    } catch (RuntimeException e) {
      log.warn("loss listener for {} threw", handle, e);
    }
  }

  /** Ends the registration; true for the one caller that ended it. */
  private boolean end() {
    if (!done.compareAndSet(false, true)) {
      return false;
    }
    onEnd.accept(this);
    return true;
  }

  @Override
  public void cancel() {
    if (end()) {
      ScheduledFuture<?> pending = next;
      if (pending != null) {
        pending.cancel(false);
      }
    }
  }

  @Override
  public boolean isActive() {
    return !done.get();
  }

  @Override
  public long renewals() {
    return renewals.get();
  }
}
