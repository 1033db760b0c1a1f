package dev.leasehold.redis;

import java.util.regex.Pattern;

/**
 * The Redis keys of one lease: {@code <namespace>:lease:v<keyVersion>:{<purpose>:<digest>}} for the
 * lease value and the same plus {@code :fence} for its fencing counter. The braces are a hash tag,
 * so both keys sit in one Redis Cluster slot and one script can touch both.
 *
 * <p>This record is immutable.
 *
 * @param lease the key holding {@code ownerToken:operationId} with a PX expiry
 */
public record LeaseKeys(String lease) {
  static final Pattern NAMESPACE = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

  /**
   * The counter the fencing tokens come from; it outlives the lease key (by the counter retention
   * under {@link FenceMode#CLOCK_FLOOR}, for good under {@link FenceMode#COUNTER}). Derived on each
   * call rather than kept: a handle is kept per held lease, and a second key string was a tenth of
   * its heap.
   */
  public String fence() {
    return lease + ":fence";
  }

  /** The channel RELEASE publishes on when it deletes this lease, so waiters can try at once. */
  public String releaseChannel() {
    return lease + ":released";
  }

  /** The keys for a purpose and digest that {@code LeaseRequest} already validated. */
  static LeaseKeys of(String namespace, int keyVersion, String purpose, String digest) {
    return new LeaseKeys(namespace + ":lease:v" + keyVersion + ":{" + purpose + ":" + digest + "}");
  }
}
