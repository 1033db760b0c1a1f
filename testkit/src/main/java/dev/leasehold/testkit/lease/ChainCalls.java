package dev.leasehold.testkit.lease;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.twin.Outcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The world's calls as its helpers make them ({@link Supervision}, {@link ConcurrentStep}): each
 * call is made on the adapter, followed by the twin and recorded like a step of the chain's own.
 *
 * <p>Implementations are not threadsafe; one chain runs on one thread.
 */
interface ChainCalls {
  /** One tryAcquire of {@code attempt}, made by {@code call}; returns the outcome's variant. */
  String acquire(String op, int attempt, long ttlMs, long waitMs, Supplier<AcquireOutcome> call);

  String renew(int handle, long ttlMs);

  /**
   * One lease of a batch of renewals sent without waiting (the watchdog's burst): the handle and
   * TTL, the handle's state just before its {@code renewAsync}, and the reply that call returned.
   */
  record BatchedRenew(int handle, long ttlMs, LeaseState stateBefore, CompletableFuture<RenewOutcome> reply) {}

  /** How many renewals the gateway holds for the next batch. */
  int queuedRenewals();

  /**
   * Sends the renewals the gateway holds as one call (one armed fault for all), then follows every
   * lease of {@code batch} on the twin as one batch, and records and checks each as a renew step
   * from {@code before} (the server and handles before the first lease was sent). Returns each
   * lease's outcome as the adapter gave it (a reply the adapter never completed is {@code NoReply})
   * and what the call sent.
   */
  BatchReply renewBatch(List<BatchedRenew> batch, Snapshot before);

  /** What a batch's call sent and met, and each lease's outcome, in the batch's order. */
  record BatchReply(FaultyGateway.Flushed sent, List<Outcome> outcomes) {}

  String release(int handle);

  /** The adapter's own outcome (or the IllegalArgumentException it threw) of the last call. */
  Object lastCall();

  /** The implementation's side: the server read directly and every handle asked. */
  Snapshot snapshot();

  /** What the step did, for the invariants and the trace, when a helper made the call itself. */
  void record(String op, int attempt, int handle, Outcome actual, Snapshot before, LeaseState stateBefore,
      long ttlMs);

  /** The check after a call: the trace step, anything broken while it was in flight, then the oracle. */
  void check();

  /**
   * Whether a fault is armed for the next call or a request it delayed may still reach the server:
   * time that passes so is no fault-free stretch.
   */
  boolean faultsPending();

  /** Time passes on the chain's clocks and the twin's. */
  void advance(long nanos);
}
