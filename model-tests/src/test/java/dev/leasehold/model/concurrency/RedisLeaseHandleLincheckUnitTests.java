package dev.leasehold.model.concurrency;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.model.lease.LeaseWorld;
import dev.leasehold.model.sim.SimulatedGateway;
import dev.leasehold.model.sim.SimulatedRedis;
import dev.leasehold.model.sim.VirtualClock;
import dev.leasehold.redis.RedisLeaseAdapter;
import java.time.Duration;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on {@code RedisLeaseHandle}: renew (the watchdog thread), release and state (the
 * application thread) run concurrently on one handle over the simulated gateway, and every
 * result must be explained by some sequential order. A read while a renew(ttl) is in flight gives
 * min(old deadline, start + ttl - drift), which is the value either before or after the renew. Time is frozen so results are deterministic;
 * after each scenario the handle must not be ACTIVE unless the server holds it for its whole budget.
 * Small parameter ranges, model checking and stress, as Caffeine does.
 *
 * <p>Excluded operations: tryAcquire and inspect (they do not touch the handle's belief) and time
 * passing (virtual time would make results depend on interleavings by design).
 */
@Param(name = "ttl", gen = IntGen.class, conf = "15:40")
public class RedisLeaseHandleLincheckUnitTests {
  private final VirtualClock clock = new VirtualClock();
  private final SimulatedRedis redis = new SimulatedRedis(clock);
  private final LeaseHandle handle;
  private final LeaseAttempt attempt;

  public RedisLeaseHandleLincheckUnitTests() {
    RedisLeaseAdapter port = RedisLeaseAdapter.builder(new SimulatedGateway(redis)).driftBudget(Duration.ofMillis(10))
        .monotonicNanos(clock.monotonic()).wallClock(clock.wall()).build();
    attempt = port.newAttempt("lincheck");
    LeaseRequest request = LeaseRequest.once("model", "sha256:" + "ab".repeat(32), Duration.ofMillis(30), attempt);
    handle = ((AcquireOutcome.Acquired) port.tryAcquire(request)).handle();
  }

  @Operation
  public String renew(@Param(name = "ttl") int ttlMs) {
    RenewOutcome out = handle.renew(Duration.ofMillis(ttlMs));
    return out instanceof RenewOutcome.Renewed r ? "Renewed(" + r.validity().toMillis() + "ms)"
        : out instanceof RenewOutcome.NotActive n ? "NotActive(" + n.state() + ")" : out.getClass().getSimpleName();
  }

  @Operation
  public String release() {
    ReleaseOutcome out = handle.release();
    return out instanceof ReleaseOutcome.NotActive n ? "NotActive(" + n.state() + ")" : out.getClass().getSimpleName();
  }

  /**
   * state(), with UNKNOWN and RELEASED as one answer. Here (no faults, time frozen) a handle reads
   * UNKNOWN only while its release is in flight (the spec's Observed(a): the key may be gone
   * already), and a sequential order, where release is one step, can place that read only after
   * the release. An UNKNOWN at any other point still fails: later results then contradict RELEASED.
   */
  @Operation
  public String state() {
    LeaseState s = handle.state();
    return s == LeaseState.UNKNOWN || s == LeaseState.RELEASED ? "RELEASED or releasing" : s.name();
  }

  /** Separate from state(): the two calls together are not one atomic read, and need not be. */
  @Operation
  public long remainingMillis() {
    return handle.remainingValidity().toMillis();
  }

  /** ValidityWithinServerLease: an ACTIVE handle's budget is within what the server holds. */
  @Validate
  public void validity() {
    if (handle.state() == LeaseState.ACTIVE) {
      SimulatedRedis.Entry e = redis.entry(LeaseWorld.KEYS);
      long deadline = clock.clientNanos() + handle.remainingValidity().toNanos();
      if (e == null || !e.value().equals(attempt.ownership()) || (e.expiryMs() + 1) * 1_000_000L < deadline) {
        throw new AssertionError("ACTIVE handle beyond the server lease: " + e);
      }
    }
  }

  @Test
  void modelChecking() {
    new ModelCheckingOptions().iterations(10).invocationsPerIteration(100).threads(2).actorsPerThread(2)
        .actorsBefore(1).actorsAfter(1).check(RedisLeaseHandleLincheckUnitTests.class);
  }

  @Test
  void stress() {
    new StressOptions().iterations(5).invocationsPerIteration(200).threads(2).actorsPerThread(3)
        .check(RedisLeaseHandleLincheckUnitTests.class);
  }
}
