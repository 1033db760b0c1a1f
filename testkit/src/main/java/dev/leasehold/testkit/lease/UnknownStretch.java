package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How long each handle of a chain has said UNKNOWN within the current fault-free stretch, on the
 * client clock (the clock a handle's budget runs on), read when a step ends: the evidence
 * SettlesWhenFaultFree judges. A fault armed, a delayed request pending, a restart or an outside
 * write starts the stretch again.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class UnknownStretch {
  /** When the current fault-free stretch began (client ns). */
  private long faultFreeSince;
  /** When each handle UNKNOWN now was first seen so at a step's end (client ns). */
  private final Map<Integer, Long> unknownSince = new HashMap<>();
  /** The longest TTL the chain has asked for (ms): no budget is longer. */
  private long longestTtlMs;

  UnknownStretch(long now) {
    this.faultFreeSince = now;
  }

  /** A call asked for {@code ttlMs}. */
  void asked(long ttlMs) {
    longestTtlMs = Math.max(longestTtlMs, ttlMs);
  }

  /**
   * After a step that ended at {@code now} with the handles in {@code states} (by id), a fault in
   * it or pending after it ({@code faulted}): each handle still UNKNOWN has been so for at most the
   * longest TTL asked of the fault-free stretch, by which time its budget, which only a success of
   * its own extends, has run out, or a reply settled it.
   */
  void stepEnded(long now, boolean faulted, List<LeaseState> states) {
    if (faulted) {
      faultFreeSince = now;
    }
    long bound = longestTtlMs * 1_000_000L;
    for (int i = 0; i < states.size(); i++) {
      if (states.get(i) != LeaseState.UNKNOWN) {
        unknownSince.remove(i);
        continue;
      }
      long since = Math.max(unknownSince.computeIfAbsent(i, k -> now), faultFreeSince);
      LivenessInvariants.unknownSettles(i, states.get(i), now - since, bound);
    }
  }
}
