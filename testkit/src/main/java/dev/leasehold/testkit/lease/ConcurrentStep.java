package dev.leasehold.testkit.lease;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.fault.Interleaving;
import dev.leasehold.testkit.runner.PropertyViolation;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * One concurrent step: the model action of the spec's two-lane interleavings (MCRenewRace,
 * MCReleaseRace). A replay of a handle's attempt runs on one thread (lane 0) beside a renew or a
 * release of that handle on another (lane 1); the two calls interleave at the gateway's send,
 * server-step and reply points in the order of the step's {@code schedule} (see
 * {@link Interleaving}), so the step replays identically from its chain. Schedule 0 is the
 * sequential form (the replay, then the other call, as two ordinary steps on the chain's thread),
 * which a shrunk chain may fall back to.
 *
 * <p>ActiveHoldsKey, ValidityWithinServerLease and MutualExclusion are checked at every stop of
 * the interleaving and, with the other state invariants, after the step. The twin runs one call at
 * a time and cannot predict an interleaved outcome exactly: after a concurrent step only the
 * invariants are checked and that each outcome is one the spec allows for that call kind; then
 * the twin is re-synced to what the adapter's handles and the server say (as
 * {@link dev.leasehold.testkit.twin.LeaseModel#pin} does on a real server). The step runs only
 * while no fault is armed, so the ledger's ambiguity, which the twin keeps and cannot read back,
 * does not change in it.
 *
 * <p>This class is not threadsafe; it is used for one step, its lanes taking turns.
 */
final class ConcurrentStep {
  /** Per call kind, the outcomes the spec allows when no fault is armed. */
  static final Map<String, Set<String>> ALLOWED = Map.of(
      "replay", Set.of("ReplayedSameOperation", "Acquired", "Contended", "OwnerOperationConflict", "Indeterminate",
          "IllegalArgumentException"),
      "renew", Set.of("Renewed", "Lost", "NotActive", "Indeterminate", "IllegalArgumentException"),
      "release", Set.of("Released", "AlreadyAbsent", "NotOwner", "NotActive", "Indeterminate"));

  private final LeaseWorld w;
  private final String op;
  private final String kind;
  private final int handle;
  private final int attempt;
  private final long ttlMs;
  private final long replayTtlMs;

  /** {@code kind} is renew or release; {@code ttlMs} is the renew's TTL (unused for a release). */
  ConcurrentStep(LeaseWorld w, String op, String kind, int handle, long ttlMs, long replayTtlMs) {
    this.w = w;
    this.op = op;
    this.kind = kind;
    this.handle = handle;
    this.attempt = w.handles.attempt(handle);
    this.ttlMs = ttlMs;
    this.replayTtlMs = replayTtlMs;
  }

  String run(int schedule) {
    if (schedule == 0) {
      w.recorder.relabel("replay");
      String replay = w.tryAcquire("replay", attempt, replayTtlMs, 0);
      w.check();
      w.recorder.relabel(kind);
      return replay + "/" + call(w.config.specConformant() ? w.handles.newestOf(attempt) : handle);
    }
    Snapshot before = w.snapshot();
    Callable<TraceStep.Lane> replay = this::replayLane;
    Callable<TraceStep.Lane> other = kind.equals("renew") ? this::renewLane : this::releaseLane;
    // The first violation at a stop is thrown once both calls returned, so that the failing step,
    // whole, is in the chain's trace (trace validation must reject it at this step).
    PropertyViolation[] violation = new PropertyViolation[1];
    Interleaving.Ran<TraceStep.Lane> ran;
    try {
      ran = Interleaving.run(replay, other, schedule - 1, points -> {
        if (violation[0] == null) {
          try {
            checkAt(points);
          } catch (PropertyViolation v) {
            violation[0] = v;
          }
        }
      });
    } catch (RuntimeException e) {
      // A lane blocked or threw: the step goes into the trace without its lanes, then the first failure.
      w.recorder.record(w.snapshot());
      if (violation[0] != null) {
        throw violation[0];
      }
      throw e;
    }
    Outcome replayed = ran.results().get(0).outcome();
    Outcome called = ran.results().get(1).outcome();
    String label = replayed.variant() + "/" + called.variant();
    w.record(op, attempt, -1, Outcome.of(label), before, null, ttlMs);
    w.recorder.lanes(ran.results(), ran.points());
    if (violation[0] != null) {
      w.recorder.record(w.snapshot());
      throw violation[0];
    }
    judge("replay", replayed);
    judge(kind, called);
    // A renew rejected before I/O opened no flight: it caps nothing.
    resync(kind.equals("renew") && !Set.of("IllegalArgumentException", "NotActive").contains(called.variant()));
    return label;
  }

  /**
   * The other call of the sequential form, as an ordinary step, on {@code target}: in a chain that
   * conforms to the spec the attempt's newest handle, since the replay may just have superseded
   * the one the step drew (the spec has one handle per attempt).
   */
  private String call(int target) {
    return kind.equals("renew") ? w.renew(target, ttlMs) : w.release(target);
  }

  private TraceStep.Lane replayLane() {
    try {
      LeaseRequest request = new LeaseRequest(LeaseWorld.PURPOSE, LeaseWorld.DIGEST, Duration.ZERO,
          Duration.ofMillis(replayTtlMs), w.attempts.get(attempt));
      AcquireOutcome raw = w.port.tryAcquire(request);
      Outcome o = Outcomes.of(raw, w.handles::id);
      w.handles.returned(o.handle(), attempt);
      return lane("acquire", replayTtlMs, o, o.handle() >= 0 ? w.handles.get(o.handle()) : null);
    } catch (IllegalArgumentException e) {
      return lane("acquire", replayTtlMs, Outcome.of("IllegalArgumentException"), null);
    }
  }

  private TraceStep.Lane renewLane() {
    try {
      Outcome o = Outcomes.of(w.handles.get(handle).renew(Duration.ofMillis(ttlMs)));
      return lane("renew", ttlMs, o, o.variant().equals("Renewed") ? w.handles.get(handle) : null);
    } catch (IllegalArgumentException e) {
      return lane("renew", ttlMs, Outcome.of("IllegalArgumentException"), null);
    }
  }

  private TraceStep.Lane releaseLane() {
    return lane("release", 0, Outcomes.of(w.handles.get(handle).release()), null);
  }

  /** A lane's call as it returns, with the observedServerExpiry its success set (read before the other lane moves). */
  private static TraceStep.Lane lane(String callKind, long ttl, Outcome o, LeaseHandle set) {
    return new TraceStep.Lane(callKind, ttl, o, set == null ? -1 : TraceRecorder.chainNanos(set.observedServerExpiry()));
  }

  /** At every stop, with both lanes stopped: what any reader of the handles may rely on. */
  private void checkAt(List<String> points) {
    try {
      LeaseInvariants.holding(w.snapshot(), w.config.waived());
    } catch (PropertyViolation v) {
      throw new PropertyViolation(v.property(), "with the lanes at " + points + " of a replay beside a " + kind + ", "
          + v.getMessage().substring(v.property().length() + 2));
    }
  }

  private void judge(String callKind, Outcome o) {
    PropertyViolation.check(ALLOWED.get(callKind).contains(o.variant()), "ModelAgreement",
        "the " + callKind + " of a replay beside a " + kind + " returned " + o
            + ", which the spec does not allow for a " + callKind + " with no fault armed");
  }

  /** The twin adopts every handle's state and the server's key: it could not follow the interleaving. */
  private void resync(boolean renewFlew) {
    long cnow = w.clock.clientNanos();
    long wallNow = nanos(w.clock.wall().instant());
    long drift = w.config.drift().toNanos();
    for (int i = 0; i < w.handles.size(); i++) {
      LeaseHandle h = w.handles.get(i);
      LeaseState s = h.state();
      long observed = nanos(h.observedServerExpiry());
      boolean known = i < w.model.handleCount();
      long deadline;
      if (s == LeaseState.ACTIVE) {
        deadline = cnow + h.remainingValidity().toNanos();
      } else if (known && w.model.wallExpiry(i) == observed) {
        deadline = w.model.deadline(i);
      } else {
        // A grant at this instant: the server's report, capped by the attempt's renews, less the drift.
        int a = w.handles.attempt(i);
        long capMs = Math.min(w.model.ambiguousRenewCap(a), renewFlew ? ttlMs : Long.MAX_VALUE);
        deadline = cnow + Math.min(observed - wallNow, Math.min(capMs, Long.MAX_VALUE / 2_000_000L) * 1_000_000L) - drift;
      }
      w.model.adoptHandle(i, w.handles.attempt(i), w.handles.grant(i), s, deadline,
          h.fencingToken().orElse(0), observed);
    }
    Snapshot now = w.snapshot();
    List<Long> log = w.backend.grantLog();
    w.model.adoptServer(now.holder(), (now.expiryLo() + now.expiryHi()) / 2, now.fence(), log == null ? -1 : log.size());
  }

  private static long nanos(Instant i) {
    return i.getEpochSecond() * 1_000_000_000L + i.getNano();
  }
}
