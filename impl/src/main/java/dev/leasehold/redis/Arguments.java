package dev.leasehold.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.Set;

/**
 * The public API's rule for arguments in this package: a null or malformed one is an
 * {@link IllegalArgumentException} that names it, thrown before any I/O, and never shows a value
 * that can carry a secret (a URI's password).
 *
 * <p>This class is stateless and threadsafe.
 */
final class Arguments {
  private static final Duration MAX_COMMAND_TIMEOUT = Duration.ofMinutes(1);
  /** The schemes lettuce knows; a message names one of these, never other text of the URI. */
  private static final Set<String> SCHEMES = Set.of("redis", "rediss", "redis-socket", "redis-sentinel", "rediss-sentinel");

  private Arguments() {}

  static <T> T notNull(String name, T value) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    return value;
  }

  /** Compared as a duration, never converted first: an extreme one must not overflow. */
  static Duration commandTimeout(Duration value) {
    notNull("commandTimeout", value);
    if (value.isNegative() || value.isZero() || value.compareTo(MAX_COMMAND_TIMEOUT) > 0) {
      throw new IllegalArgumentException("commandTimeout must be in (0, 1 min] but was " + value);
    }
    return value;
  }

  /**
   * Parses {@code uri}. Lettuce's own message repeats the whole text, password included, so the
   * exception says only how long it was and which scheme it named, and carries no cause.
   */
  static RedisURI redisUri(String uri) {
    notNull("uri", uri);
    try {
      return RedisURI.create(uri);
    } catch (RuntimeException e) {
      int colon = uri.indexOf("://");
      String scheme = colon > 0 && SCHEMES.contains(uri.substring(0, colon)) ? uri.substring(0, colon) : null;
      throw new IllegalArgumentException("uri is not a valid Redis URI (" + uri.length() + " characters"
          + (scheme == null ? ", no known scheme" : ", scheme " + scheme) + "); its text is not shown, as it may carry a password");
    }
  }
}
