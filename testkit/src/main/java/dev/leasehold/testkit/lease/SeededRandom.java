package dev.leasehold.testkit.lease;

import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * A {@link SecureRandom} that is not secure at all: owner tokens and wait-loop jitter follow from
 * the chain seed, so a chain replays exactly. Tests only.
 *
 * <p>This class is not threadsafe.
 */
final class SeededRandom extends SecureRandom {
  private static final long serialVersionUID = 1L;
  private final transient SplittableRandom random;

  SeededRandom(long seed) {
    super(null, null);
    this.random = new SplittableRandom(seed);
  }

  @Override
  public void nextBytes(byte[] bytes) {
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) random.nextInt(256);
    }
  }

  @Override
  public long nextLong() {
    return random.nextLong();
  }

  @Override
  public void setSeed(long seed) {
    // SecureRandom's constructor calls this before our field exists; the chain seed is fixed.
  }
}
