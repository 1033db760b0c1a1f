package dev.leasehold.lease;

/**
 * The root of every exception Leasehold throws. Redis failures are not exceptions: they are typed
 * outcomes ({@code Unavailable}, {@code Overloaded}, {@code Indeterminate}). This is for misuse of a
 * closed adapter and for failures of setup.
 *
 * <p>This class is immutable.
 */
public class LeaseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LeaseException(String message) {
    super(message);
  }

  public LeaseException(String message, Throwable cause) {
    super(message, cause);
  }

  public LeaseException(Throwable cause) {
    super(cause);
  }
}
