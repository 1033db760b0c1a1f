package dev.leasehold.testkit.twin;

import dev.leasehold.testkit.sim.LeaseClock;

/**
 * The spec's clocks: {@code now} (the server's), {@code lag}, and {@code cnow} (the client's
 * monotonic clock, which never goes back), in ns on the chain's clocks. The twin's server and
 * client sides read one instance, as the spec's actions read the same variables.
 *
 * <p>This class is not threadsafe.
 */
final class ModelTime {
  long now;
  long lag;
  long cnow;

  ModelTime() {}

  private ModelTime(long now, long lag, long cnow) {
    this.now = now;
    this.lag = lag;
    this.cnow = cnow;
  }

  ModelTime copy() {
    return new ModelTime(now, lag, cnow);
  }

  /** Tick: time passes; the client clock follows, minus the lag. */
  void tick(long nanos) {
    now += nanos;
    cnow = Math.max(cnow, now - lag);
  }

  /** The client clock falls behind (or catches up) within the drift budget; it never goes back. */
  void setLag(long nanos) {
    cnow = Math.max(cnow, now - lag);
    lag = nanos;
    cnow = Math.max(cnow, now - lag);
  }

  /** On a real server: adopt the harness's frozen clock readings. */
  void sync(long trueNanos, long clientNanos) {
    now = trueNanos;
    cnow = clientNanos;
  }

  /** The server's clock in whole ms, as Redis reads it for PX and PTTL. */
  long nowMs() {
    return Math.floorDiv(now, 1_000_000L);
  }

  /** The client's wall clock (observedServerExpiry is on it). */
  long wall() {
    return LeaseClock.EPOCH_NANOS + cnow;
  }
}
