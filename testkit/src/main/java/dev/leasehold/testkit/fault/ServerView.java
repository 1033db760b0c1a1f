package dev.leasehold.testkit.fault;

/**
 * What the server holds for the lease, read directly (not through the adapter) to check the
 * invariants. Expiry is on the chain's true clock in ns, as a window {@code [expiryLo, expiryHi]}:
 * exact on the simulated server, a few ms wide on a real one (PTTL has ms resolution and is read
 * at some instant of a round trip).
 *
 * <p>This record is immutable.
 *
 * @param holder the stored ownership, or null when the key is absent
 * @param fence the fencing counter (0 when absent)
 */
public record ServerView(String holder, long expiryLo, long expiryHi, long fence) {
  /** The holder read from a lease key that holds a hash ({@link External#RETYPE}): no attempt's value. */
  public static final String NOT_A_STRING = "(a hash)";

  public static ServerView absent(long fence) {
    return new ServerView(null, 0, 0, fence);
  }

  public boolean held() {
    return holder != null;
  }

  /** Whether {@code other} may be the same server state, allowing for the read windows. */
  public boolean sameAs(ServerView other, long slackNanos) {
    if (!java.util.Objects.equals(holder, other.holder) || fence != other.fence) {
      return false;
    }
    return holder == null
        || (expiryLo <= other.expiryHi + slackNanos && other.expiryLo <= expiryHi + slackNanos);
  }
}
