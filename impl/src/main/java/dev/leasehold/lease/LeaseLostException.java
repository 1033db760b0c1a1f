package dev.leasehold.lease;

/**
 * Thrown by {@link LeaseContext#throwIfCancelled()} once the lease the work runs under is
 * {@code LOST} or {@code UNKNOWN}.
 *
 * <p>This class is immutable.
 */
public final class LeaseLostException extends LeaseException {
  private static final long serialVersionUID = 1L;

  private final LeaseState state;

  public LeaseLostException(LeaseState state, String reason) {
    super("lease " + state + ": " + reason);
    this.state = state;
  }

  /** {@code LOST} or {@code UNKNOWN}. */
  public LeaseState state() {
    return state;
  }
}
