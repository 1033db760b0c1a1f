package dev.leasehold.testkit.lease;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.twin.Outcome;
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

  /** Time passes on the chain's clocks and the twin's. */
  void advance(long nanos);
}
