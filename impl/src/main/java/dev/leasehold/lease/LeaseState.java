package dev.leasehold.lease;

/**
 * What a handle believes about its lease. {@link #LOST} and {@link #RELEASED} are terminal.
 *
 * <p>This enum is immutable.
 */
public enum LeaseState {
  /** The server holds this attempt's value and will not expire it before the local deadline. */
  ACTIVE,
  /** A reply was lost: the lease may or may not still be held. Do not act on it. */
  UNKNOWN,
  /** The lease is gone: expired locally, deleted or taken by another attempt. Terminal. */
  LOST,
  /** This handle released the lease (or found it already absent). Terminal. */
  RELEASED;

  /** Whether a renew or release may still be sent for a handle in this state. */
  public boolean isLive() {
    return this == ACTIVE || this == UNKNOWN;
  }
}
