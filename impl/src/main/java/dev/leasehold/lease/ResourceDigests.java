package dev.leasehold.lease;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Makes the {@code resourceDigest} a {@link LeaseRequest} takes, so that a raw resource id never
 * reaches the port, a key or a log.
 *
 * <p>This class is stateless and threadsafe.
 */
public final class ResourceDigests {
  private ResourceDigests() {}

  /** {@code sha256:} and the lowercase hex SHA-256 of the UTF-8 bytes of {@code resourceId}. */
  public static String sha256(String resourceId) {
    return sha256(Checks.notNull("resourceId", resourceId).getBytes(StandardCharsets.UTF_8));
  }

  /** {@code sha256:} and the lowercase hex SHA-256 of {@code resourceId}. */
  public static String sha256(byte[] resourceId) {
    Checks.notNull("resourceId", resourceId);
    try {
      return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(resourceId));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
