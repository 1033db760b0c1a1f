package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.testkit.fault.Backend;
import dev.leasehold.testkit.fault.ServerView;
import dev.leasehold.testkit.sim.LeaseClock;
import java.util.ArrayList;
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
    if (holder != -1 && expiryHi <= later) {   // an attempt's value or a foreign one (-2)
      return new Snapshot(later, clientNow, lag, -1, 0, 0, fence, handles, ownerOf, slack);
    }
    return this;
  }

  /** The implementation's side: the server read directly and every handle asked. */
  static Snapshot of(Backend backend, LeaseKeys keys, LeaseClock clock, AdapterAttempts attempts, AdapterHandles handles) {
    ServerView v = backend.view(keys);
    int holder = -1;
    if (v.held()) {
      int i = attempts.withOwnership(v.holder());
      holder = i >= 0 ? i : -2;   // held by a value of no attempt of this chain
    }
    List<HandleObs> obs = new ArrayList<>();
    for (int i = 0; i < handles.size(); i++) {
      LeaseHandle h = handles.get(i);
      obs.add(new HandleObs(i, handles.attempt(i), h.state(), h.remainingValidity().toNanos(), h.fencingToken().orElse(0)));
    }
    return new Snapshot(clock.trueNanos(), clock.clientNanos(), clock.lag(), holder, v.expiryLo(), v.expiryHi(), v.fence(),
        obs, attempts.owners(), backend.slackNanos());
  }

  public Snapshot {
    handles = List.copyOf(handles);
    ownerOf = List.copyOf(ownerOf);
  }
}
