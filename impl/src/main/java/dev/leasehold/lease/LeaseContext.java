package dev.leasehold.lease;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@link LeaseWork} sees while it runs: the lease's fencing token and handle, and whether
 * the lease has been lost since the work started.
 *
 * <p>Cancellation is a flag: when the watchdog reports the lease {@code LOST} or {@code UNKNOWN},
 * {@link #isCancelled()} becomes true and stays so. The work thread is interrupted as well only
 * when the runner was built to do so ({@code interruptWorkOnLoss}); then the runner clears that
 * interrupt again before it releases and returns.
 *
 * <p>Implementations are threadsafe.
 */
public interface LeaseContext {
  /** The lease the work runs under. Do not release it: the runner does. */
  LeaseHandle handle();

  /** The fencing token to send with every protected write; empty if the provider issued none. */
  default OptionalLong fencingToken() {
    return handle().fencingToken();
  }

  /** Whether the lease was reported lost or unknown; once true, stays true. */
  boolean isCancelled();

  /** Why the work was cancelled, once it is. */
  Optional<LeaseWatchdog.LeaseLoss> cancellation();

  /**
   * Throws if the work was cancelled; a cheap check to put between steps.
   *
   * @throws LeaseLostException if {@link #isCancelled()}
   */
  default void throwIfCancelled() {
    Optional<LeaseWatchdog.LeaseLoss> loss = cancellation();
    if (loss.isPresent()) {
      throw new LeaseLostException(loss.get().state(), loss.get().reason());
    }
  }
}
