package dev.leasehold.chaos;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntPredicate;

/**
 * One contender: acquire, then a few rounds of (check the handle, perform the effect, renew), then
 * release; again, until its operation budget or the run's deadline is spent. Every call and what
 * it returned goes to the {@link History}. A paused worker (a GC pause, a stopped VM) is simulated
 * between its last check and its effect, for longer than its remaining budget.
 *
 * <p>This class is not threadsafe: one thread runs one worker.
 */
final class Worker implements Runnable {
  static final String PURPOSE = "chaos";

  /** How one worker behaves. */
  record Plan(
      Duration ttl,
      Duration waitTimeout,
      int effectsPerLease,
      Duration work,
      Duration minBudget,
      int maxOps,
      /** Which leases (1-based count of this worker's grants) pause before their first effect. */
      IntPredicate pauseBefore,
      Duration pauseBeyondBudget,
      /** Skip effects of a handle that is not FENCED (what a careful caller does with replicaAck). */
      boolean requireFenced) {}

  private final String name;
  private final DistributedLeasePort port;
  private final List<EffectStore> stores;
  private final String resource;
  private final String digest;
  private final History history;
  private final Plan plan;
  private final long endAt;
  private int ops;
  private int grants;

  Worker(String name, DistributedLeasePort port, List<EffectStore> stores, String resource, String digest,
      History history, Plan plan, long endAt) {
    this.name = name;
    this.port = port;
    this.stores = stores;
    this.resource = resource;
    this.digest = digest;
    this.history = history;
    this.plan = plan;
    this.endAt = endAt;
  }

  private boolean done() {
    return ops >= plan.maxOps() || history.now() >= endAt || Thread.currentThread().isInterrupted();
  }

  @Override
  public void run() {
    int n = 0;
    while (!done()) {
      n++;
      String grant = name + ".a" + n;
      LeaseAttempt attempt = port.newAttempt(grant);
      LeaseRequest request = new LeaseRequest(PURPOSE, digest, plan.waitTimeout(), plan.ttl(), attempt);
      LeaseHandle handle = acquire(grant, request);
      if (handle == null) {
        pause(Duration.ofMillis(ThreadLocalRandom.current().nextLong(5, 25)));
        continue;
      }
      grants++;
      hold(grant, handle, plan.pauseBefore().test(grants));
    }
  }

  /** Acquires; an ambiguous outcome is replayed with the same attempt, at most twice. */
  LeaseHandle acquire(String grant, LeaseRequest request) {
    AcquireOutcome out = null;
    for (int tries = 0; tries < 3 && !done(); tries++) {
      long seq = history.invoke(name, grant, "acquire");
      out = port.tryAcquire(request);
      ops++;
      LeaseHandle handle = out instanceof AcquireOutcome.Acquired a ? a.handle()
          : out instanceof AcquireOutcome.ReplayedSameOperation r ? r.handle() : null;
      complete(seq, grant, "acquire", outcomeName(out), handle, out.toString());
      if (handle != null) {
        return handle;
      }
      if (!(out instanceof AcquireOutcome.Indeterminate)) {
        return null;
      }
    }
    return null;
  }

  /** The rounds of one lease, then its release. */
  void hold(String grant, LeaseHandle handle, boolean pauseFirst) {
    for (int round = 0; round < plan.effectsPerLease() && !done(); round++) {
      long at = history.now();
      LeaseState state = handle.state();
      Duration left = handle.remainingValidity();
      history.add(new History.Observe(at, name, grant, state.name(), at + left.toNanos()));
      if (state != LeaseState.ACTIVE || left.compareTo(plan.minBudget()) < 0) {
        break;
      }
      if (round == 0 && pauseFirst) {
        // The worker stops between its check and its effect, for longer than its budget.
        long start = history.now();
        pause(left.plus(plan.pauseBeyondBudget()));
        history.fault(start, "client-pause", name + " " + grant + " paused " + left.plus(plan.pauseBeyondBudget()).toMillis()
            + " ms after a check that left " + left.toMillis() + " ms");
      }
      effect(grant, handle);
      pause(plan.work());
      long seq = history.invoke(name, grant, "renew");
      RenewOutcome renewed = handle.renew(plan.ttl());
      ops++;
      complete(seq, grant, "renew", outcomeName(renewed), handle, renewed.toString());
      if (!(renewed instanceof RenewOutcome.Renewed)) {
        break;
      }
    }
    release(grant, handle);
  }

  /** Records what the handle believes now, as a worker's check before an effect; returns the state. */
  LeaseState observe(String grant, LeaseHandle handle) {
    long at = history.now();
    LeaseState state = handle.state();
    Duration left = handle.remainingValidity();
    history.add(new History.Observe(at, name, grant, state.name(), at + left.toNanos()));
    return state;
  }

  /** Releases; a release that was not applied or may not have been is tried twice more. */
  void release(String grant, LeaseHandle handle) {
    for (int tries = 0; tries < 3; tries++) {
      long seq = history.invoke(name, grant, "release");
      ReleaseOutcome released = handle.release();
      ops++;
      complete(seq, grant, "release", outcomeName(released), handle, released.toString());
      if (!(released instanceof ReleaseOutcome.Unavailable || released instanceof ReleaseOutcome.Overloaded
          || released instanceof ReleaseOutcome.Indeterminate)) {
        return;
      }
      pause(Duration.ofMillis(50));
    }
  }

  /** Writes both stores with the handle's token (in one order each time: fenced, then control). */
  void effect(String grant, LeaseHandle handle) {
    long token = handle.fencingToken().orElse(0);
    String claimed = handle.guarantee().name();
    if (plan.requireFenced() && handle.guarantee() != LeaseGuarantee.FENCED) {
      history.note(name + " " + grant + " skipped its effect: the handle is " + claimed);
      return;
    }
    for (EffectStore store : stores) {
      long start = history.now();
      try {
        EffectStore.WriteResult r = store.write(resource, token, grant, grant + "@" + start);
        history.add(new History.Effect(start, history.now(), name, grant, store.name(), token, r.accepted(), r.seq(),
            r.prevFence(), r.prevHolder(), claimed));
      } catch (SQLException e) {
        history.note(name + " " + grant + " effect on " + store.name() + " failed: " + e.getMessage());
      }
    }
    ops++;
  }

  void complete(long seq, String grant, String op, String outcome, LeaseHandle handle, String detail) {
    long at = history.now();
    String state = handle == null ? "-" : handle.state().name();
    long deadline = handle == null ? -1 : at + handle.remainingValidity().toNanos();
    long token = handle == null ? 0 : handle.fencingToken().orElse(0);
    String guarantee = handle == null ? "-" : handle.guarantee().name();
    history.add(new History.Complete(seq, at, name, grant, op, outcome, state, deadline, token, guarantee, detail));
  }

  static String outcomeName(Object outcome) {
    if (outcome instanceof RenewOutcome.NotActive n) {
      return "NotActive(" + n.state() + ")";
    }
    if (outcome instanceof ReleaseOutcome.NotActive n) {
      return "NotActive(" + n.state() + ")";
    }
    return outcome.getClass().getSimpleName();
  }

  static void pause(Duration d) {
    try {
      Thread.sleep(Math.max(0, d.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  int ops() {
    return ops;
  }
}
