package dev.leasehold.lease;

import dev.leasehold.lease.LeaseWatchdog.LeaseLoss;
import dev.leasehold.lease.LeaseWatchdog.LossListener;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link LeaseWatchdog} registration: renews one handle whenever the watchdog's
 * {@link RenewalQueue} says it is due, without waiting for the reply, and judges the reply on the
 * thread that completes it (a gateway's I/O thread), until the handle is released, lost or
 * unknown, the deadline passes or it is cancelled (see {@link LeaseWatchdog} for what each ending
 * means). Judging is a few reads and one queue insert, so it runs where the reply lands rather than
 * costing every renewal a hop to the executor; the {@link LossListener}, which is the
 * application's code, is always called on the watchdog's executor.
 *
 * <p>This class is threadsafe: a renewal's judgement and {@link #cancel()} may race, and
 * {@link #end()} lets exactly one of them end the registration.
 */
final class LeaseWatch implements LeaseWatchdog.Registration {
  // The watchdog's logger, so that one logger setting still covers everything the watchdog says.
  private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

  private final RenewalQueue queue;
  private final Executor executor;
  private final LongSupplier monotonicNanos;
  private final Consumer<LeaseWatch> onEnd;
  private final LeaseHandle handle;
  private final Duration ttl;
  private final Long stopAt;
  private final LossListener listener;
  // Plain fields behind VarHandles rather than atomics: a watch is kept per held lease, and two
  // atomic objects were a tenth of a watched lease's heap.
  private static final VarHandle DONE;
  private static final VarHandle RENEWALS;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      DONE = lookup.findVarHandle(LeaseWatch.class, "done", boolean.class);
      RENEWALS = lookup.findVarHandle(LeaseWatch.class, "renewals", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private volatile boolean done;
  private volatile long renewals;
  /** Which of this watch's queued renewals is current; read and written under the queue's lock. */
  long generation;

  /**
   * @param stopAt the deadline on {@code monotonicNanos}, or null for none
   * @param onEnd told once, by whoever ends the registration
   */
  LeaseWatch(RenewalQueue queue, Executor executor, LongSupplier monotonicNanos, Consumer<LeaseWatch> onEnd,
      LeaseHandle handle, Duration ttl, Long stopAt, LossListener listener) {
    this.queue = queue;
    this.executor = executor;
    this.monotonicNanos = monotonicNanos;
    this.onEnd = onEnd;
    this.handle = handle;
    this.ttl = ttl;
    this.stopAt = stopAt;
    this.listener = listener;
  }

  /** Apart from the constructor, so that the watchdog lists this watch as live before a renewal can end it. */
  void start() {
    schedule(RenewCadence.regular(ttl, handle.remainingValidity()));
  }

  /**
   * Due in {@code delayNanos} at the latest (never past the caller's deadline). It may go up to a
   * quarter of that earlier, with others' renewals: renewing early is always safe, and it lets
   * the renewals of many leases share round trips.
   */
  private void schedule(long delayNanos) {
    if (done) {
      return;
    }
    long now = monotonicNanos.getAsLong();
    long delay = delayNanos;
    if (stopAt != null) {
      delay = Math.max(0, Math.min(delay, stopAt - now));
    }
    if (!queue.add(this, now + delay, now + delay - Math.min(delay / 4, RenewalQueue.MAX_EARLY_NANOS))) {
      // The executor is shutting down: nothing will renew this lease any more.
      log.debug("watchdog executor refused a renewal of {}", handle);
      end();
    }
  }

  /** The renewal is due: sends it, on the queue's thread, and judges its reply where it completes. */
  void renewNow() {
    if (done) {
      return;
    }
    try {
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
        report(before, "local validity ran out before the renewal", true);
        return;
      }
      // UNKNOWN may be the application's release in flight: a handle whose request is in flight
      // sends nothing (Unavailable, retried below), and the next renewal answers from what it left.
      CompletableFuture<RenewOutcome> renewal = handle.renewAsync(ttl).toCompletableFuture();
      if (renewal.isDone()) {
        // Answered already (a handle that renews on the calling thread): judged here, on the executor.
        renewal.whenComplete((outcome, failure) -> judge(outcome, failure, true));
      } else {
        renewal.whenComplete((outcome, failure) -> judge(outcome, failure, false));
      }
    } catch (RuntimeException e) {
      unexpected(e);
    }
  }

  /** @param onExecutor whether this runs on the watchdog's executor, where a loss may be reported at once */
  private void judge(RenewOutcome outcome, Throwable failure, boolean onExecutor) {
    if (failure != null) {
      unexpected(failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
      return;
    }
    if (done) {
      return;
    }
    try {
      judge(outcome, onExecutor);
    } catch (RuntimeException e) {
      unexpected(e);
    }
  }

  /** A handle must not throw, but a bug in one must not stop the others: try again soon. */
  private void unexpected(Throwable e) {
    log.warn("renewing {} failed unexpectedly; retrying", handle, e);
    schedule(RenewCadence.retry(ttl, handle.remainingValidity(), null));
  }

  private void judge(RenewOutcome outcome, boolean onExecutor) {
    if (outcome instanceof RenewOutcome.Renewed r) {
      RENEWALS.getAndAdd(this, 1L);
      log.debug("renewed {}, valid for {}", handle, r.validity());
      schedule(RenewCadence.regular(ttl, r.validity()));
    } else if (outcome instanceof RenewOutcome.Lost l) {
      report(LeaseState.LOST, l.reason(), onExecutor);
    } else if (outcome instanceof RenewOutcome.NotActive n) {
      if (n.state() == LeaseState.RELEASED) {
        end();
      } else {
        report(n.state(), "lease not active: " + n.state(), onExecutor);
      }
    } else if (outcome instanceof RenewOutcome.Indeterminate i) {
      LeaseState now = handle.state();
      if (now == LeaseState.RELEASED) {
        end();
      } else {
        report(now == LeaseState.ACTIVE ? LeaseState.UNKNOWN : now, "renewal unanswered: " + i.reason(), onExecutor);
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
        report(now, "renewals failed until the lease ran out: " + outcome, onExecutor);
      }
    }
  }

  /**
   * Ends the registration and tells the listener, on the executor: at once when this runs there,
   * else (a reply judged on a gateway's I/O thread) by handing it the call.
   */
  private void report(LeaseState state, String reason, boolean onExecutor) {
    if (!end()) {
      return;
    }
    log.warn("lease {} is {}: {}", handle, state, reason);
    LeaseLoss loss = new LeaseLoss(handle, state, reason);
    if (onExecutor) {
      tell(loss);
      return;
    }
    try {
      executor.execute(() -> tell(loss));
    } catch (RejectedExecutionException e) {
      // Only a closing watchdog's own executor refuses, and close ends every registration without a callback.
      log.debug("watchdog executor refused the loss report of {}", handle);
    }
  }

  private void tell(LeaseLoss loss) {
    try {
      listener.onLoss(loss);
    } catch (RuntimeException e) {
      log.warn("loss listener for {} threw", handle, e);
    }
  }

  /** Ends the registration; true for the one caller that ended it. */
  private boolean end() {
    if (!DONE.compareAndSet(this, false, true)) {
      return false;
    }
    onEnd.accept(this);
    return true;
  }

  @Override
  public void cancel() {
    // The queue drops an ended watch when it comes due; nothing else holds it.
    end();
  }

  @Override
  public boolean isActive() {
    return !done;
  }

  @Override
  public long renewals() {
    return renewals;
  }
}
