package dev.leasehold.testkit.sim;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/**
 * The time of one chain. {@link #trueNanos()} is the server's clock; the adapter's injected
 * monotonic clock is {@link #clientNanos()}, which lags behind it by up to the drift the chain
 * chose (a client clock that runs slow is the dangerous direction: it believes less time passed),
 * and never goes backwards. The wall clock is the client clock on the epoch.
 *
 * <p>Implementations are threadsafe.
 */
public abstract class LeaseClock {
  /** Wall-clock nanoseconds at client time 0; any fixed instant works. */
  public static final long EPOCH_NANOS = 1_780_000_000_000_000_000L;

  private long lag;
  private long lastClient;

  /** Server time in ns since the chain started. */
  public abstract long trueNanos();

  /** Lets {@code nanos} pass (virtual: at once; real: sleeps). */
  public abstract void advance(long nanos);

  /** The adapter's monotonic clock: server time minus the lag, never decreasing. */
  public synchronized long clientNanos() {
    lastClient = Math.max(lastClient, trueNanos() - lag);
    return lastClient;
  }

  /** Sets how far the client clock falls behind (0..drift); a client clock never jumps back. */
  public synchronized void lag(long nanos) {
    clientNanos();
    lag = nanos;
  }

  public synchronized long lag() {
    return lag;
  }

  public LongSupplier monotonic() {
    return this::clientNanos;
  }

  /** The client's wall clock: {@link #EPOCH_NANOS} plus client time. */
  public Clock wall() {
    return new Clock() {
      @Override
      public ZoneOffset getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        throw new UnsupportedOperationException("UTC only");
      }

      @Override
      public Instant instant() {
        return Instant.ofEpochSecond(0, EPOCH_NANOS + clientNanos());
      }
    };
  }
}
