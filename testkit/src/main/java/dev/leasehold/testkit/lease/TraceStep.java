package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.twin.Outcome;
import java.util.List;

/**
 * One chain step as trace validation reads it (dev.leasehold.testkit.trace.SpecTrace): the action,
 * its attempt, handle and TTL, its outcome, the gateway calls it made with the fault each met, the
 * delayed request it let through, and the implementation right after it (the same snapshot the
 * invariants read) with each handle's observedServerExpiry in client-clock nanoseconds.
 *
 * <p>This record is immutable.
 *
 * @param step the step's 1-based index in the chain, as the runner counts executed steps
 */
public record TraceStep(int step, String action, int attempt, int handle, long ttlMs, Outcome outcome,
    List<FaultyGateway.Call> calls, FaultyGateway.Delayed late, int lateAttempt, Snapshot after,
    List<Long> observedExpiry) {
  public TraceStep {
    calls = List.copyOf(calls);
    observedExpiry = List.copyOf(observedExpiry);
  }
}
