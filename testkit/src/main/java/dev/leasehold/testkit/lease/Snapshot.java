package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseState;
import java.util.List;

/**
 * One instant of a chain as an oracle sees it: the server's lease and every handle's answers.
 * The same record is built from the implementation (server read directly, handles asked) and from
 * the model, and {@link LeaseInvariants} checks both.
 *
 * <p>This record is immutable.
 *
 * @param trueNow the server's clock (ns) at the snapshot
 * @param holder the holding attempt's index, -1 when absent
 * @param expiryLo the key's expiry on the true clock (ns), lower end of the read window
 * @param expiryHi upper end of the read window (= lo when simulated)
 * @param slack how far (ns) readings may be off on a real server (0 when simulated)
 */
public record Snapshot(long trueNow, long clientNow, long lag, int holder, long expiryLo, long expiryHi, long fence,
    List<HandleObs> handles, List<Integer> ownerOf, long slack) {

  /** What one handle answered: state(), remainingValidity() and its token. */
  public record HandleObs(int id, int attempt, LeaseState state, long remaining, long token) {}

  /** This snapshot's server as it must look at {@code later} if nobody touched it: expired keys gone. */
  public Snapshot agedTo(long later) {
    if (holder >= 0 && expiryHi <= later) {
      return new Snapshot(later, clientNow, lag, -1, 0, 0, fence, handles, ownerOf, slack);
    }
    return this;
  }

  public Snapshot {
    handles = List.copyOf(handles);
    ownerOf = List.copyOf(ownerOf);
  }
}
