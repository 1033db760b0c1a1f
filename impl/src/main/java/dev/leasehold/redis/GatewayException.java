package dev.leasehold.redis;

import dev.leasehold.lease.LeaseException;

/**
 * A script call failed; {@link #failure()} says whether it could have been applied. Gateways throw
 * it so that the adapter never has to know a client library's exception types.
 *
 * <p>This class is immutable.
 */
public final class GatewayException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /** What a failure tells about the command. */
  public enum Failure {
    /** Never written to the server (not connected, rejected by the client): not applied. */
    NOT_SENT,
    /** The server refused it before running it and it may work soon (BUSY, OOM, LOADING...): not applied. */
    OVERLOADED,
    /** The server refused it before running it for a lasting reason (READONLY...): not applied. */
    REFUSED,
    /** Sent, with no reply we can trust (timeout, connection lost, interrupted): may be applied. */
    AMBIGUOUS
  }

  private final Failure failure;

  public GatewayException(Failure failure, String message, Throwable cause) {
    super(message, cause);
    this.failure = failure;
  }

  public GatewayException(Failure failure, String message) {
    super(message);
    this.failure = failure;
  }

  public Failure failure() {
    return failure;
  }

  /** Whether the command certainly did not change the server. */
  public boolean provablyNotApplied() {
    return failure != Failure.AMBIGUOUS;
  }
}
