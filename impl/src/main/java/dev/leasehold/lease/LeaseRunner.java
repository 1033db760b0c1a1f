package dev.leasehold.lease;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs work under a lease: acquires (waiting up to the request's {@code waitTimeout}), keeps the
 * lease renewed with a {@link LeaseWatchdog} while the work runs on the caller's thread, cancels
 * the work's {@link LeaseContext} when the lease is lost, and always releases afterwards, even
 * when the work throws or the thread is interrupted. A lease that is no longer {@code ACTIVE} when
 * the work would begin (its validity ran out between the grant and then) is not worked under.
 *
 * <p>Cancellation sets the context's flag; with {@code interruptWorkOnLoss} it also interrupts the
 * work thread, and clears that interrupt again before the release (an interrupt from elsewhere
 * is kept and restored after the release).
 *
 * <p>This class is threadsafe.
 */
public final class LeaseRunner {
  private static final Logger log = LoggerFactory.getLogger(LeaseRunner.class);

  private final DistributedLeasePort port;
  private final LeaseWatchdog watchdog;
  private final boolean interruptWorkOnLoss;
  private final Consumer<LeaseResult<?>> observer;

  /**
   * @param observer told every result (for metrics); may be null
   * @throws IllegalArgumentException if {@code port} or {@code watchdog} is null
   */
  public LeaseRunner(DistributedLeasePort port, LeaseWatchdog watchdog, boolean interruptWorkOnLoss,
      Consumer<LeaseResult<?>> observer) {
    this.port = Checks.notNull("port", port);
    this.watchdog = Checks.notNull("watchdog", watchdog);
    this.interruptWorkOnLoss = interruptWorkOnLoss;
    this.observer = observer == null ? r -> { } : observer;
  }

  /**
   * Acquires, runs {@code work} with the lease, releases. Never throws for Redis failures or for
   * what the work throws (an {@link Error} from the work is rethrown after the release).
   *
   * @throws IllegalArgumentException if an argument is null, or the port rejects the request
   *     before any I/O
   */
  public <T> LeaseResult<T> withLease(LeaseRequest request, LeaseWork<T> work) {
    Checks.notNull("request", request);
    Checks.notNull("work", work);
    LeaseResult<T> result = run(request, work);
    observer.accept(result);
    return result;
  }

  private <T> LeaseResult<T> run(LeaseRequest request, LeaseWork<T> work) {
    AcquireOutcome outcome = port.tryAcquire(request);
    if (outcome instanceof AcquireOutcome.Indeterminate && !Thread.currentThread().isInterrupted()) {
      // The last try may have granted the lease: one replay of the same attempt tells, so the lease
      // is used and released, or not ours, rather than left held until its TTL.
      AcquireOutcome replay = port.tryAcquire(new LeaseRequest(request.purpose(), request.resourceDigest(),
          Duration.ZERO, request.leaseTtl(), request.attempt()));
      // A replay refused before it ran tells nothing: the lease may still be held until its TTL,
      // which only Indeterminate says.
      if (!(replay instanceof AcquireOutcome.Unavailable || replay instanceof AcquireOutcome.Overloaded)) {
        outcome = replay;
      }
    }
    LeaseHandle handle = handleOf(outcome);
    if (handle == null) {
      log.debug("lease not acquired (operationId={}): {}", request.attempt().operationId(), outcome);
      return new LeaseResult.NotAcquired<>(outcome);
    }
    log.debug("lease acquired: {}", handle);
    Context context = new Context(handle, Thread.currentThread(), interruptWorkOnLoss);
    LeaseWatchdog.Registration registration;
    try {
      registration = watchdog.watch(handle, request.leaseTtl(), context::cancel);
    } catch (LeaseWatchdog.RegistrationRefusedException e) {
      return new LeaseResult.Failed<>(e, release(handle, false));
    }
    // The grant may come back to a thread that gets to the work only after the lease's validity ran
    // out (a long pause, a virtual thread resumed late): the work is then not run under it.
    LeaseState atStart = handle.state();
    T value = null;
    Throwable failure = null;
    if (atStart == LeaseState.ACTIVE) {
      try {
        value = work.run(context);
      } catch (Exception | Error e) {
        failure = e;
      }
    }
    LeaseState atEnd = handle.state();
    registration.cancel();
    boolean ours = context.finish();
    boolean flag = Thread.interrupted();
    boolean restore = (flag && !ours) || (failure instanceof InterruptedException && !ours);
    ReleaseOutcome release = release(handle, restore);
    if (failure instanceof Error error) {
      throw error;
    }
    if (atStart != LeaseState.ACTIVE) {
      String reason = "lease " + atStart + " before the work began";
      log.warn("{}: {}", reason, handle);
      return new LeaseResult.LeaseLostDuringWork<>(atStart, reason, null, release);
    }
    Optional<LeaseWatchdog.LeaseLoss> loss = context.cancellation();
    if (loss.isPresent()) {
      return new LeaseResult.LeaseLostDuringWork<>(loss.get().state(), loss.get().reason(), failure, release);
    }
    if (atEnd != LeaseState.ACTIVE) {
      String reason = "lease " + atEnd + " when the work ended";
      log.warn("{}: {}", reason, handle);
      return new LeaseResult.LeaseLostDuringWork<>(atEnd, reason, failure, release);
    }
    if (failure != null) {
      return new LeaseResult.Failed<>((Exception) failure, release);
    }
    return new LeaseResult.Completed<>(value, release);
  }

  /** Releases with the interrupt flag clear (a set flag would stop the release being sent). */
  private static ReleaseOutcome release(LeaseHandle handle, boolean restoreInterrupt) {
    ReleaseOutcome release;
    try {
      release = handle.release();
    } finally {
      if (restoreInterrupt) {
        Thread.currentThread().interrupt();
      }
    }
    if (release instanceof ReleaseOutcome.Released || release instanceof ReleaseOutcome.AlreadyAbsent
        || release instanceof ReleaseOutcome.NotActive) {
      log.debug("release of {}: {}", handle, release);
    } else {
      log.warn("release of {} was not clean: {}; the lease expires with its TTL", handle, release);
    }
    return release;
  }

  private static LeaseHandle handleOf(AcquireOutcome outcome) {
    if (outcome instanceof AcquireOutcome.Acquired a) {
      return a.handle();
    }
    if (outcome instanceof AcquireOutcome.ReplayedSameOperation r) {
      return r.handle().state() == LeaseState.ACTIVE ? r.handle() : null;
    }
    return null;
  }

  /** The context: a cancellation flag, and optionally an interrupt of the work thread while it runs. */
  private static final class Context implements LeaseContext {
    private final LeaseHandle handle;
    private final Thread worker;
    private final boolean interrupt;
    private volatile LeaseWatchdog.LeaseLoss loss;
    /** Guarded by {@code this}. */
    private boolean running = true;
    private boolean interrupted;

    Context(LeaseHandle handle, Thread worker, boolean interrupt) {
      this.handle = handle;
      this.worker = worker;
      this.interrupt = interrupt;
    }

    synchronized void cancel(LeaseWatchdog.LeaseLoss loss) {
      if (this.loss != null) {
        return;
      }
      this.loss = Objects.requireNonNull(loss);
      if (interrupt && running) {
        interrupted = true;
        worker.interrupt();
      }
    }

    /** No interrupt after this; true if this context interrupted the worker. */
    synchronized boolean finish() {
      running = false;
      return interrupted;
    }

    @Override
    public LeaseHandle handle() {
      return handle;
    }

    @Override
    public boolean isCancelled() {
      return loss != null;
    }

    @Override
    public Optional<LeaseWatchdog.LeaseLoss> cancellation() {
      return Optional.ofNullable(loss);
    }
  }
}
