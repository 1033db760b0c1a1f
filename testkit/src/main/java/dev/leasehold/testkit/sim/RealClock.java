package dev.leasehold.testkit.sim;

/**
 * Real time for chains against a real redis-server. The adapter's clock is frozen at the start of
 * each step ({@link #refreeze}) so that the model knows the exact instant the adapter measures its
 * budgets from; the server runs on real time, which is a little later (the backend's slack
 * covers that, like a client clock running slightly behind).
 *
 * <p>This class is threadsafe.
 */
public final class RealClock extends LeaseClock {
  private final long base = System.nanoTime();
  private volatile long frozen;

  /** Real time since this clock was made. */
  public long liveNanos() {
    return System.nanoTime() - base;
  }

  public void refreeze() {
    frozen = liveNanos();
  }

  @Override
  public long trueNanos() {
    return frozen;
  }

  /** Lets real time pass (this is time passing in the chain, not a wait for a result). */
  @Override
  public void advance(long nanos) {
    long until = System.nanoTime() + nanos;
    try {
      for (long left = nanos; left > 0; left = until - System.nanoTime()) {
        Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while letting time pass", e);
    }
    refreeze();
  }
}
