package dev.leasehold.testkit.twin;

/**
 * An outcome normalised so that the model's prediction and the adapter's result compare
 * field by field: {@code variant} is the record's simple name, {@code detail} a discrete field
 * (a {@code NotActive} state, {@code Held}'s holderIsThisAttempt and token), {@code value} a
 * time in ns ({@code retryAfter}, validity, remaining) compared with a tolerance, and
 * {@code handle} the handle id an acquire returned ({@link #NEW_HANDLE} for a fresh one).
 *
 * <p>This record is immutable.
 */
public record Outcome(String variant, String detail, long value, int handle) {
  public static final int NO_HANDLE = -1;
  public static final int NEW_HANDLE = -2;

  public static Outcome of(String variant) {
    return new Outcome(variant, "", 0, NO_HANDLE);
  }

  public static Outcome of(String variant, String detail) {
    return new Outcome(variant, detail, 0, NO_HANDLE);
  }

  public static Outcome timed(String variant, long nanos) {
    return new Outcome(variant, "", nanos, NO_HANDLE);
  }

  /**
   * Whether {@code actual} is this outcome: the same variant, detail and handle, and a time at most
   * {@code toleranceNanos} above this one's and at most {@code toleranceNanos + lateNanos} below it
   * (on a real server the call ran up to {@code lateNanos} after the instant the model applies it
   * at, so a time read from the server's PTTL can only be lower).
   */
  public boolean matches(Outcome actual, long toleranceNanos, long lateNanos) {
    return variant.equals(actual.variant) && detail.equals(actual.detail) && handle == actual.handle
        && actual.value - value <= toleranceNanos && value - actual.value <= toleranceNanos + lateNanos;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder(variant).append('(');
    String sep = "";
    if (!detail.isEmpty()) {
      b.append(detail);
      sep = ", ";
    }
    if (value != 0) {
      b.append(sep).append(String.format("%.3fms", value / 1e6));
      sep = ", ";
    }
    if (handle != NO_HANDLE) {
      b.append(sep).append(handle == NEW_HANDLE ? "new handle" : "handle " + handle);
    }
    return b.append(')').toString();
  }
}
