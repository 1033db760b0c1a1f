package dev.leasehold.redis;

/**
 * How ACQUIRE computes the next fencing token. Sent to the script as its fourth argument.
 *
 * <p>This enum is immutable.
 */
public enum FenceMode {
  /** The counter plus one: monotonic until a restart or failover loses the counter. */
  COUNTER("counter"),
  /**
   * {@code max(counter + 1, server TIME in microseconds)}: stays monotonic across a restart or a failover
   * that loses the counter, as long as the server clocks do not go back across it and no resource
   * is granted more than once a microsecond (a script run takes longer than that).
   */
  CLOCK_FLOOR("clock");

  private final String wire;

  FenceMode(String wire) {
    this.wire = wire;
  }

  /** The argument value the script understands. */
  public String wire() {
    return wire;
  }
}
