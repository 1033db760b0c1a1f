package dev.leasehold.testkit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds a {@code redis-server} executable for tests: the one on PATH (Debian's), else the one
 * bundled in {@code com.github.codemonstur:embedded-redis} (6.2, linux and macOS). A test that
 * needs one of the two in particular asks {@link #onPath()} or {@link #bundled()}.
 *
 * <p>This class is threadsafe.
 */
public final class RedisBinary {
  private static volatile Path cached;
  private static Path bundledCopy;

  private RedisBinary() {}

  /** The executable, or empty when neither is available (then tests use Testcontainers or a URL). */
  public static synchronized Optional<Path> locate() {
    if (cached != null) {
      return Optional.of(cached);
    }
    Optional<Path> found = onPath().or(RedisBinary::bundled);
    found.ifPresent(p -> cached = p);
    return found;
  }

  /** The {@code redis-server} on PATH (Redis 7.0 on Debian 12), if any. */
  public static Optional<Path> onPath() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, "redis-server");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * The binary embedded-redis bundles for this platform (Redis 6.2), copied out of its jar to
   * {@code target/redis-bin}, if any; whether or not a {@code redis-server} is on PATH.
   */
  public static synchronized Optional<Path> bundled() {
    if (bundledCopy == null) {
      copyBundled().ifPresent(p -> bundledCopy = p);
    }
    return Optional.ofNullable(bundledCopy);
  }

  private static Optional<Path> copyBundled() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    String resource;
    if (os.contains("linux")) {
      resource = arch.contains("aarch64") || arch.contains("arm64") ? "redis-server-6.2.7-linux-arm64"
          : arch.contains("64") ? "redis-server-6.2.6-v5-linux-amd64" : "redis-server-6.2.7-linux-386";
    } else if (os.contains("mac")) {
      resource = arch.contains("aarch64") ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
    } else {
      return Optional.empty();
    }
    try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        return Optional.empty();
      }
      Path dir = Files.createDirectories(Path.of("target", "redis-bin"));
      Path exe = dir.resolve(resource);
      Files.copy(in, exe, StandardCopyOption.REPLACE_EXISTING);
      if (!exe.toFile().setExecutable(true)) {
        return Optional.empty();
      }
      return Optional.of(exe.toAbsolutePath());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
