package dev.leasehold.redis;

/**
 * What the four scripts replied, decoded. The simulated and the lettuce gateways both speak it.
 *
 * <p>Every variant is immutable.
 */
public final class GatewayReply {
  private GatewayReply() {}

  /** ACQUIRE's reply. */
  public sealed interface Acquire {}

  /**
   * Status 1: the key was absent; it now holds this attempt with a new token, for the TTL the request
   * asked for (the reply carries no PTTL: it could only echo the request).
   */
  public record Granted(long fencingToken) implements Acquire {}

  /** Status 2: the key already held this attempt; nothing changed. {@code pttl} may be 0 or -1. */
  public record Replayed(long fencingToken, long pttl) implements Acquire {}

  /** Status 0: another value (or a non-string key) is there. */
  public record HeldByOther(long pttl, boolean sameOwnerToken) implements Acquire {}

  /** RENEW's and RELEASE's reply: 1, 0 or -1. */
  public enum Change {
    /** The key held this attempt and was extended (RENEW) or deleted (RELEASE). */
    APPLIED,
    /** The key was absent; nothing changed. */
    ABSENT,
    /** Another value (or a non-string key) is there; nothing changed. */
    OTHER
  }

  /** INSPECT's reply. */
  public sealed interface Inspect {}

  /** No key. */
  public record Vacant() implements Inspect {}

  /** A key; {@code fencingToken} is the counter's value, 0 when it has none. */
  public record Occupied(boolean thisAttempt, long pttl, long fencingToken) implements Inspect {}
}
