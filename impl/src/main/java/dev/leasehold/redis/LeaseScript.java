package dev.leasehold.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The four Lua scripts, loaded once from this package's resources, with the SHA1 that
 * {@code EVALSHA} names them by.
 *
 * <p>This enum is immutable.
 */
public enum LeaseScript {
  ACQUIRE("acquire.lua", false),
  RENEW("renew.lua", false),
  RELEASE("release.lua", false),
  INSPECT("inspect.lua", true);

  private final String source;
  private final String sha1;
  private final String legacySource;
  private final String legacySha1;
  private final boolean readOnly;

  LeaseScript(String resource, boolean readOnly) {
    this.source = load(resource);
    this.sha1 = sha1(source);
    // Redis before 7.0 knows no shebang line; without it the body is the same script.
    this.legacySource = source.substring(source.indexOf('\n') + 1);
    this.legacySha1 = sha1(legacySource);
    this.readOnly = readOnly;
  }

  /** The script text: with its {@code #!lua} line for Redis 7+, without it for older servers. */
  public String source(boolean shebang) {
    return shebang ? source : legacySource;
  }

  /** The digest Redis files {@link #source(boolean)} under, as {@code SCRIPT LOAD} returns it. */
  public String sha1(boolean shebang) {
    return shebang ? sha1 : legacySha1;
  }

  /** Whether the script declares {@code flags=no-writes} and may run with {@code EVALSHA_RO}. */
  public boolean readOnly() {
    return readOnly;
  }

  private static String load(String resource) {
    try (InputStream in = LeaseScript.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing script resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha1(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every JVM", e);
    }
  }
}
