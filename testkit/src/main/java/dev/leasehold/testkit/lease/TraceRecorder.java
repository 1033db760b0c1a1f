package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Records one chain's {@link TraceStep}s for trace validation: the actions fill in what their step
 * did, and the check after the step adds it with the snapshot the invariants read.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class TraceRecorder {
  private final FaultyGateway gateway;
  private final AdapterAttempts attempts;
  private final List<LeaseHandle> handles;
  private final LongSupplier realNow;
  private final List<TraceStep> trace = new ArrayList<>();
  private int steps;
  private String action = "none";
  private int attempt = -1;
  private int handle = -1;
  private long ttlMs;
  private Outcome outcome = Outcome.of("ok");
  private FaultyGateway.Delayed late;
  /** The attempts of the batch whose calls the next record drains: see {@link TraceStep#batch()}. */
  private List<Integer> batch = List.of();
  private List<TraceStep.Lane> lanes = List.of();
  private List<String> points = List.of();
  private String label = "ok";

  /**
   * Reads the chain's attempts and handles (by id) as they grow; {@code realNow} is the real clock
   * in chain nanoseconds (on simulated time, the chain's clock).
   */
  TraceRecorder(FaultyGateway gateway, AdapterAttempts attempts, List<LeaseHandle> handles, LongSupplier realNow) {
    this.gateway = gateway;
    this.attempts = attempts;
    this.handles = handles;
    this.realNow = realNow;
  }

  /** Every action starts here: the chain's step count and what the trace step will record. */
  void begin(String stepAction) {
    steps++;
    action = stepAction;
    attempt = -1;
    handle = -1;
    ttlMs = 0;
    outcome = Outcome.of("ok");
    late = null;
    batch = List.of();
    lanes = List.of();
    points = List.of();
    label = "ok";
  }

  /** What the statistics count for the step: see {@link TraceStep#label()}. */
  void label(String stepLabel) {
    label = stepLabel;
  }

  /**
   * The step records as {@code stepAction} from here on: the sequential form of a concurrent step
   * is a replay and then a renew or release, each recorded as such under the step's one number,
   * and a watchdog's renewal inside a tick is a renew. Returns the action it recorded as before.
   */
  String relabel(String stepAction) {
    String was = action;
    action = stepAction;
    return was;
  }

  /**
   * The next record carries a batch of renewals sent by the leases of {@code ownerships}, in the
   * order of its calls: see {@link TraceStep#batch()}.
   */
  void batch(List<String> ownerships) {
    batch = ownerships.stream().map(attempts::withOwnership).toList();
  }

  /** A concurrent step's two calls and the points of its interleaving. */
  void lanes(List<TraceStep.Lane> stepLanes, List<String> stepPoints) {
    lanes = stepLanes;
    points = stepPoints;
  }

  /** An instant of the adapter's wall clock as chain nanoseconds (since the chain started). */
  static long chainNanos(Instant e) {
    return e.getEpochSecond() * 1_000_000_000L + e.getNano() - LeaseClock.EPOCH_NANOS;
  }

  /** What the step's call was for and what it returned. */
  void call(int callAttempt, int callHandle, long callTtlMs, Outcome callOutcome) {
    attempt = callAttempt;
    handle = callHandle;
    ttlMs = callTtlMs;
    outcome = callOutcome;
  }

  /** The delayed request the step let through (applyLate). */
  void late(FaultyGateway.Delayed delayed) {
    late = delayed;
  }

  /** The step just taken: recorded before the invariants, so a failing step is in it. */
  void record(Snapshot after) {
    List<Long> observed = new ArrayList<>();
    for (LeaseHandle h : handles) {
      observed.add(chainNanos(h.observedServerExpiry()));
    }
    int lateAttempt = late == null ? -1 : attempts.withOwnership(late.ownership());
    trace.add(new TraceStep(steps, action, attempt, handle, ttlMs, outcome, gateway.drainCalls(), batch, late,
        lateAttempt, after, observed, lanes, points, realNow.getAsLong(), label));
    batch = List.of();
  }

  /** The step recorded last. */
  TraceStep last() {
    return trace.get(trace.size() - 1);
  }

  List<TraceStep> trace() {
    return List.copyOf(trace);
  }
}
