package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.twin.Outcome;
import java.util.List;

/**
 * One chain step as trace validation reads it (dev.leasehold.testkit.trace.SpecTrace): the action,
 * its attempt, handle and TTL, its outcome, the gateway calls it made with the fault each met, the
 * delayed request it let through, and the implementation right after it (the same snapshot the
 * invariants read) with each handle's observedServerExpiry in client-clock nanoseconds. A
 * concurrent step also has its two {@code lanes} and the {@code points} of its interleaving (see
 * dev.leasehold.testkit.fault.Interleaving.Ran); other steps have neither.
 *
 * <p>A batch of the watchdog's renewals (one call carrying several leases) is one renew step per
 * lease, in the batch's order, each with the snapshot read right after its own lease was answered
 * (the later leases still in flight). The first of them carries the batch's gateway calls, one per
 * lease sent, and in {@code batch} the attempt of each, in the same order; every step has an
 * empty {@code batch} but that one.
 *
 * <p>This record is immutable.
 *
 * @param step the step's 1-based index in the chain, as the runner counts executed steps
 * @param realAfter the real clock (chain nanoseconds) right after the snapshot {@code after} was
 *     read; on simulated time the chain's own clock, {@code after.trueNow()}
 * @param label what the runner's statistics count for the chain step: the outcome's variant of a
 *     call, {@code ok} for a step that is not one, or what a step of several calls ended with
 *     ({@code Acquired/Renewed} for a concurrent step, {@code watching}, {@code Completed}); the
 *     steps recorded inside a chain step (a watchdog's renewal) carry {@code ok}
 */
public record TraceStep(int step, String action, int attempt, int handle, long ttlMs, Outcome outcome,
    List<FaultyGateway.Call> calls, List<Integer> batch, FaultyGateway.Delayed late, int lateAttempt, Snapshot after,
    List<Long> observedExpiry, List<Lane> lanes, List<String> points, long realAfter, String label) {
  public TraceStep {
    calls = List.copyOf(calls);
    batch = List.copyOf(batch);
    observedExpiry = List.copyOf(observedExpiry);
    lanes = List.copyOf(lanes);
    points = List.copyOf(points);
  }

  /**
   * One lane's call of a concurrent step: {@code kind} acquire (the replay), renew or release, its
   * TTL, its outcome, and the observedServerExpiry (chain nanoseconds) of the handle it returned or
   * renewed, read as the call returned, or -1 when it did not set one.
   */
  public record Lane(String kind, long ttlMs, Outcome outcome, long observedExpiry) {}
}
