package dev.leasehold.model.properties;

import java.nio.file.Path;

/**
 * The knobs surefire passes (see the pom): chain count, length, seed, target folder, and an
 * optional chain file to replay.
 *
 * <p>This class is stateless.
 */
public final class ModelSettings {
  private ModelSettings() {}

  public static int chains(int fallback) {
    return Integer.getInteger("model.chains", fallback);
  }

  public static int maxLength() {
    return Integer.getInteger("model.maxLength", 50);
  }

  /** The run seed: fixed in CI for determinism; {@code -Dmodel.seed=random} explores. */
  public static long seed() {
    String s = System.getProperty("model.seed", "20261201");
    return s.equals("random") ? System.nanoTime() : Long.parseLong(s);
  }

  public static Path target() {
    return Path.of(System.getProperty("model.target.dir", "target"));
  }

  public static Path replayFile() {
    String f = System.getProperty("model.replay");
    return f == null || f.isBlank() ? null : Path.of(f);
  }
}
