package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
  private final List<TraceStep> trace = new ArrayList<>();
  private int steps;
  private String action = "none";
  private int attempt = -1;
  private int handle = -1;
  private long ttlMs;
  private Outcome outcome = Outcome.of("ok");
  private FaultyGateway.Delayed late;

  /** Reads the chain's attempts and handles (by id) as they grow. */
  TraceRecorder(FaultyGateway gateway, AdapterAttempts attempts, List<LeaseHandle> handles) {
    this.gateway = gateway;
    this.attempts = attempts;
    this.handles = handles;
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
      Instant e = h.observedServerExpiry();
      observed.add(e.getEpochSecond() * 1_000_000_000L + e.getNano() - LeaseClock.EPOCH_NANOS);
    }
    int lateAttempt = late == null ? -1 : attempts.withOwnership(late.ownership());
    trace.add(new TraceStep(steps, action, attempt, handle, ttlMs, outcome, gateway.drainCalls(), late, lateAttempt,
        after, observed));
  }

  List<TraceStep> trace() {
    return List.copyOf(trace);
  }
}
