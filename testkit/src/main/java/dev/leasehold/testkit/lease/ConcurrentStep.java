package dev.leasehold.testkit.lease;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.testkit.fault.Interleaving;
import dev.leasehold.testkit.runner.PropertyViolation;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Duration;
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
 * <p>This class is not threadsafe; one chain runs on one thread, and a step's lanes take turns.
 */
final class ConcurrentStep {
  /** Per call kind, the outcomes the spec allows when no fault is armed. */
  static final Map<ActionName, Set<String>> ALLOWED = Map.of(
      ActionName.REPLAY, Set.of("ReplayedSameOperation", "Acquired", "Contended", "OwnerOperationConflict", "Indeterminate",
          "IllegalArgumentException"),
      ActionName.RENEW, Set.of("Renewed", "Lost", "NotActive", "Indeterminate", "IllegalArgumentException"),
      ActionName.RELEASE, Set.of("Released", "AlreadyAbsent", "NotOwner", "NotActive", "Indeterminate"));

  private final ChainCalls calls;
  private final TraceRecorder recorder;
  private final AdapterAttempts attempts;
  private final AdapterHandles handles;
  private final DistributedLeasePort port;
  private final Oracle oracle;
  private final boolean specConformant;
  private final Set<LeaseProperty> waived;

  /** Each step's calls go through {@code calls}, or straight to {@code port} and the handles in the lanes. */
  ConcurrentStep(ChainCalls calls, TraceRecorder recorder, AdapterAttempts attempts, AdapterHandles handles,
      DistributedLeasePort port, Oracle oracle, boolean specConformant, Set<LeaseProperty> waived) {
    this.calls = calls;
    this.recorder = recorder;
    this.attempts = attempts;
    this.handles = handles;
    this.port = port;
    this.oracle = oracle;
    this.specConformant = specConformant;
    this.waived = waived;
  }

  /**
   * One step: {@code kind} is renew or release; {@code ttlMs} is the renew's TTL (unused for a
   * release); the step is recorded as {@code op}.
   */
  private record Race(String op, ActionName kind, int handle, int attempt, long ttlMs, long replayTtlMs) {}

  /** A replay of {@code handle}'s attempt beside a renew of the handle, in the order of {@code schedule}. */
  String renewBesideReplay(String op, int handle, long ttlMs, long replayTtlMs, int schedule) {
    return run(new Race(op, ActionName.RENEW, handle, handles.attempt(handle), ttlMs, replayTtlMs), schedule);
  }

  /** A replay of {@code handle}'s attempt beside a release of the handle, in the order of {@code schedule}. */
  String releaseBesideReplay(String op, int handle, long replayTtlMs, int schedule) {
    return run(new Race(op, ActionName.RELEASE, handle, handles.attempt(handle), 0, replayTtlMs), schedule);
  }

  private String run(Race race, int schedule) {
    if (schedule == 0) {
      recorder.relabel(ActionName.REPLAY.chainName());
      String replay = calls.acquire(ActionName.REPLAY.chainName(), race.attempt(), race.replayTtlMs(), 0,
          () -> port.tryAcquire(request(race)));
      calls.check();
      recorder.relabel(race.kind().chainName());
      return replay + "/" + call(race, specConformant ? handles.newestOf(race.attempt()) : race.handle());
    }
    Snapshot before = calls.snapshot();
    Callable<TraceStep.Lane> replay = () -> replayLane(race);
    Callable<TraceStep.Lane> other = race.kind() == ActionName.RENEW ? () -> renewLane(race) : () -> releaseLane(race);
    // The first violation at a stop is thrown once both calls returned, so that the failing step,
    // whole, is in the chain's trace (trace validation must reject it at this step).
    PropertyViolation[] violation = new PropertyViolation[1];
    Interleaving.Ran<TraceStep.Lane> ran;
    try {
      ran = Interleaving.run(replay, other, schedule - 1, points -> {
        if (violation[0] == null) {
          try {
            checkAt(race, points);
          } catch (PropertyViolation v) {
            violation[0] = v;
          }
        }
      });
    } catch (RuntimeException e) {
      // A lane blocked or threw: the step goes into the trace without its lanes, then the first failure.
      recorder.record(calls.snapshot());
      if (violation[0] != null) {
        throw violation[0];
      }
      throw e;
    }
    Outcome replayed = ran.results().get(0).outcome();
    Outcome called = ran.results().get(1).outcome();
    String label = replayed.variant() + "/" + called.variant();
    calls.record(race.op(), race.attempt(), -1, Outcome.of(label), before, null, race.ttlMs());
    recorder.lanes(ran.results(), ran.points());
    if (violation[0] != null) {
      recorder.record(calls.snapshot());
      throw violation[0];
    }
    judge(race, ActionName.REPLAY, replayed);
    judge(race, race.kind(), called);
    // The twin could not follow the interleaving: it adopts what the handles and the server say. A
    // renew rejected before I/O opened no flight: it caps nothing.
    boolean renewFlew = race.kind() == ActionName.RENEW
        && !Set.of("IllegalArgumentException", "NotActive").contains(called.variant());
    oracle.adopt(calls::snapshot, renewFlew ? race.ttlMs() : Long.MAX_VALUE);
    return label;
  }

  private LeaseRequest request(Race race) {
    return new LeaseRequest(LeaseWorld.PURPOSE, LeaseWorld.DIGEST, Duration.ZERO, Duration.ofMillis(race.replayTtlMs()),
        attempts.get(race.attempt()));
  }

  /**
   * The other call of the sequential form, as an ordinary step, on {@code target}: in a chain that
   * conforms to the spec the attempt's newest handle, since the replay may just have superseded
   * the one the step drew (the spec has one handle per attempt).
   */
  private String call(Race race, int target) {
    return race.kind() == ActionName.RENEW ? calls.renew(target, race.ttlMs()) : calls.release(target);
  }

  private TraceStep.Lane replayLane(Race race) {
    try {
      AcquireOutcome raw = port.tryAcquire(request(race));
      Outcome o = Outcomes.of(raw, handles::id);
      handles.returned(o.handle(), race.attempt());
      return lane("acquire", race.replayTtlMs(), o, o.handle() >= 0 ? handles.get(o.handle()) : null);
    } catch (IllegalArgumentException e) {
      return lane("acquire", race.replayTtlMs(), Outcome.of("IllegalArgumentException"), null);
    }
  }

  private TraceStep.Lane renewLane(Race race) {
    try {
      Outcome o = Outcomes.of(handles.get(race.handle()).renew(Duration.ofMillis(race.ttlMs())));
      return lane("renew", race.ttlMs(), o, o.variant().equals("Renewed") ? handles.get(race.handle()) : null);
    } catch (IllegalArgumentException e) {
      return lane("renew", race.ttlMs(), Outcome.of("IllegalArgumentException"), null);
    }
  }

  private TraceStep.Lane releaseLane(Race race) {
    return lane("release", 0, Outcomes.of(handles.get(race.handle()).release()), null);
  }

  /** A lane's call as it returns, with the observedServerExpiry its success set (read before the other lane moves). */
  private static TraceStep.Lane lane(String callKind, long ttl, Outcome o, LeaseHandle set) {
    return new TraceStep.Lane(callKind, ttl, o, set == null ? -1 : TraceRecorder.chainNanos(set.observedServerExpiry()));
  }

  /** At every stop, with both lanes stopped: what any reader of the handles may rely on. */
  private void checkAt(Race race, List<String> points) {
    try {
      LeaseInvariants.holding(calls.snapshot(), waived);
    } catch (PropertyViolation v) {
      throw new PropertyViolation(v.property(), "with the lanes at " + points + " of a replay beside a " + race.kind().chainName() + ", "
          + v.getMessage().substring(v.property().length() + 2));
    }
  }

  private static void judge(Race race, ActionName callKind, Outcome o) {
    LeaseProperty.ModelAgreement.require(ALLOWED.get(callKind).contains(o.variant()),
        () -> "the " + callKind.chainName() + " of a replay beside a " + race.kind().chainName() + " returned " + o
            + ", which the spec does not allow for a " + callKind.chainName() + " with no fault armed");
  }
}
