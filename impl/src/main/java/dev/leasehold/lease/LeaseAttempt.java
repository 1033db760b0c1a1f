package dev.leasehold.lease;

/**
 * One attempt to hold a lease: a secret owner token bound to the caller's operation id. Send the
 * same attempt again after a lost reply and the server recognises it as a replay; another operation
 * id of the same owner never inherits the lease.
 *
 * <p>The owner token is a secret: it never appears in {@link #toString()}. Keep an attempt (or its
 * two parts) across a process restart to replay an acquire whose reply was lost.
 *
 * <p>This class is immutable and threadsafe.
 */
public final class LeaseAttempt {
  /** 24 random bytes, Base64URL without padding. */
  static final Shape OWNER_TOKEN = Shape.of("", "A-Za-z0-9_-", "A-Za-z0-9_-", 31, 31);
  /** No ':' so that {@code ownerToken:operationId} splits one way only. */
  static final Shape OPERATION_ID = Shape.of("", "A-Za-z0-9", "A-Za-z0-9._-", 0, 127);

  private final String ownerToken;
  private final String operationId;

  /**
   * @throws IllegalArgumentException if the token is not 32 Base64URL characters, the operation
   *     id is not {@code [A-Za-z0-9][A-Za-z0-9._-]{0,127}}, or both are the same string; the
   *     message never shows either value
   */
  public LeaseAttempt(String ownerToken, String operationId) {
    this.operationId = validOperationId(operationId);
    this.ownerToken = Checks.matches("ownerToken", ownerToken, OWNER_TOKEN,
        "[A-Za-z0-9_-]{32} (24 random bytes, Base64URL)");
    if (ownerToken.equals(operationId)) {
      // Swapped or doubled arguments: the operation id is printed everywhere, the token must not be.
      throw new IllegalArgumentException(
          "operationId must not be the owner token: the operation id is printed, the token is a secret");
    }
  }

  /** @throws IllegalArgumentException naming {@code operationId} (never showing it) when it is malformed */
  public static String validOperationId(String operationId) {
    return Checks.matches("operationId", operationId, OPERATION_ID, "[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  }

  /** The secret owner token. Do not log it. */
  public String ownerToken() {
    return ownerToken;
  }

  public String operationId() {
    return operationId;
  }

  /** The value the server stores for this attempt: {@code ownerToken:operationId}. A secret. */
  public String ownership() {
    return ownerToken + ":" + operationId;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LeaseAttempt other
        && ownerToken.equals(other.ownerToken)
        && operationId.equals(other.operationId);
  }

  @Override
  public int hashCode() {
    return 31 * ownerToken.hashCode() + operationId.hashCode();
  }

  @Override
  public String toString() {
    return "LeaseAttempt[operationId=" + operationId + ", ownerToken=<redacted>]";
  }
}
