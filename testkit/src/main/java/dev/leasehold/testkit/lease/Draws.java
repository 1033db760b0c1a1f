package dev.leasehold.testkit.lease;

import java.util.SplittableRandom;

/**
 * How {@link LeaseMachine} draws its arguments: TTLs (now and then one at or below the drift
 * budget, which must be rejected before any I/O), wait timeouts, time steps, all on the chain's time
 * grid (whole ticks when it conforms to the spec).
 *
 * <p>This class is immutable.
 */
final class Draws {
  private final WorldConfig config;

  Draws(WorldConfig config) {
    this.config = config;
  }

  long ttl(SplittableRandom r) {
    long drift = config.drift().toMillis();
    return r.nextInt(12) == 0 ? r.nextLong(1, drift + 1) : r.nextLong(config.minTtlMs(), config.maxTtlMs() + 1);
  }

  /** A TTL on the chain's time grid; shrinking may leave the grid, so every use rounds again. */
  long ttlOnGrid(long ms) {
    long unit = Math.max(1, config.timeStepMicros() / 1_000);
    return (ms + unit - 1) / unit * unit;
  }

  long microsOnGrid(long micros) {
    return micros / config.timeStepMicros() * config.timeStepMicros();
  }

  /** Mostly no wait; with the wait loop on, one call in six waits up to 160 ms. */
  long waitMs(SplittableRandom r) {
    return !config.waits() || r.nextInt(6) != 0 ? 0 : r.nextLong(1, 160);
  }

  /** A time step of up to {@code maxMs}, on the grid. */
  long step(SplittableRandom r, long maxMs) {
    long unit = config.timeStepMicros();
    long micros = r.nextLong(0, maxMs * 1_000 + 1);
    return micros / unit * unit;
  }
}
