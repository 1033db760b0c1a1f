package dev.leasehold.testkit.sim;

/**
 * Virtual time: only {@link #advance} moves it, so a chain is deterministic and runs at CPU speed.
 * The simulated server and the adapter's clocks read the same instance.
 *
 * <p>This class is threadsafe.
 */
public final class VirtualClock extends LeaseClock {
  private long now;

  @Override
  public synchronized long trueNanos() {
    return now;
  }

  @Override
  public synchronized void advance(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("time does not go back: " + nanos);
    }
    now += nanos;
  }
}
