package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.fault.Backend;
import dev.leasehold.testkit.runner.PropertyViolation;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.sim.RealClock;
import dev.leasehold.testkit.twin.Choices;
import dev.leasehold.testkit.twin.FencedStore;
import dev.leasehold.testkit.twin.LeaseModel;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One chain's oracle: it follows every call on the {@link LeaseModel} twin, keeping the branch of
 * the twin's choices whose outcome the adapter produced, and after every step runs
 * {@link LeaseInvariants} on the implementation, compares it with the twin, and runs the twin's
 * own invariants. A disagreement found during a step is collected and thrown by the check after
 * it (ModelAgreement), so that the step is in the trace first.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class Oracle {
  private final WorldConfig config;
  private final Backend backend;
  private final LeaseClock clock;
  private final List<LeaseHandle> handles;
  private final List<Integer> ownerOf;
  /** Each handle's LOST or RELEASED once a check saw it (TerminalStays). */
  private final Map<Integer, LeaseState> terminalSeen = new HashMap<>();
  private final List<String> problems = new ArrayList<>();

  /** Reads the chain's adapter handles and owners (by id) as they grow. */
  Oracle(WorldConfig config, Backend backend, LeaseClock clock, List<LeaseHandle> handles, List<Integer> ownerOf) {
    this.config = config;
    this.backend = backend;
    this.clock = clock;
    this.handles = handles;
    this.ownerOf = ownerOf;
  }

  /** A disagreement between the adapter and the twin, reported by the next {@link #check}. */
  void problem(String problem) {
    problems.add(problem);
  }

  /**
   * Runs {@code step} on copies of {@code model}, exploring its uncertain choices, and returns the
   * copy whose outcome the adapter produced. When no branch allows it, records a problem and
   * returns the first branch.
   */
  LeaseModel follow(LeaseModel model, Function<LeaseModel, Outcome> step, Outcome actual) {
    List<List<Boolean>> frontier = new ArrayList<>(List.of(List.of()));
    List<Outcome> allowed = new ArrayList<>();
    LeaseModel first = null;
    for (int explored = 0; !frontier.isEmpty() && explored < 32; explored++) {
      List<Boolean> forced = frontier.remove(0);
      LeaseModel copy = model.copy();
      Choices choices = new Choices(forced);
      copy.choices(choices);
      Outcome out = step.apply(copy);
      for (int i = forced.size(); i < choices.asked(); i++) {
        List<Boolean> alt = new ArrayList<>(forced);
        for (int j = forced.size(); j < i; j++) {
          alt.add(false);
        }
        alt.add(true);
        frontier.add(alt);
      }
      if (first == null) {
        first = copy;
      }
      allowed.add(out);
      if (out.matches(actual, tolerance(), lateness())) {
        copy.choices(new Choices(List.of()));
        return copy;
      }
    }
    problems.add("the adapter returned " + actual + "; the model allows only " + allowed);
    first.choices(new Choices(List.of()));
    return first;
  }

  /** state(): what the adapter's handle said against the twin's. */
  void state(int handle, LeaseState actual, LeaseState twin) {
    if (actual != twin) {
      problems.add("state() of handle " + handle + " is " + actual + ", the model says " + twin);
    }
  }

  /** effect: whether the fenced store took the adapter's token against whether the twin's took its own. */
  void effect(int handle, long token, boolean accepted, boolean twinAccepted) {
    if (accepted != twinAccepted) {
      problems.add("the fenced store " + (accepted ? "accepted" : "rejected") + " token " + token
          + " of handle " + handle + ", the model " + (twinAccepted ? "accepted" : "rejected") + " it");
    }
  }

  /**
   * After every step: the invariants on the implementation (from {@code event}'s snapshot before
   * to {@code after}), then agreement with the twin, then the twin's own invariants.
   */
  void check(StepEvent event, Snapshot after, FencedStore store, LeaseModel model) {
    Snapshot before = event.before() == null ? after : event.before();
    StepEvent full = new StepEvent(event.op(), event.attempt(), event.handle(), event.outcome(), before,
        event.stateBefore());
    LeaseInvariants.checkAll(full, after, terminalSeen, store.last(), store.max(), config.waived());
    for (Snapshot.HandleObs h : after.handles()) {
      if (h.state() == LeaseState.LOST || h.state() == LeaseState.RELEASED) {
        terminalSeen.putIfAbsent(h.id(), h.state());
      }
    }
    if (!problems.isEmpty()) {
      String msg = String.join("; ", problems);
      problems.clear();
      throw new PropertyViolation("ModelAgreement", msg);
    }
    compareHandles(after, model);
    // Built even when waived: reading the twin's handles stores a local expiry, as state() does.
    Snapshot twin = modelSnapshot(model);
    if (config.waived().isEmpty()) {
      LeaseInvariants.holding(twin, config.waived());
    }
    if (!config.waived().contains("FencedEffects")) {
      LeaseInvariants.requireFencedEffects(model.storeLast(), model.storeMax());
    }
  }

  /** The twin's side, checked by the same invariants. */
  private Snapshot modelSnapshot(LeaseModel model) {
    List<Snapshot.HandleObs> obs = new ArrayList<>();
    for (int i = 0; i < model.handleCount(); i++) {
      obs.add(new Snapshot.HandleObs(i, model.handleAttempt(i), model.state(i), model.remaining(i), model.token(i)));
    }
    long expiry = model.expiryNanos();
    return new Snapshot(model.trueNow(), model.clientNow(), model.lag(), model.holder(), expiry, expiry, model.fence(),
        obs, ownerOf, backend.slackNanos());
  }

  private long tolerance() {
    return config.exact() ? 0 : backend.slackNanos();
  }

  /**
   * On a real server: how long the step has run in real time since it froze the client clock. The
   * server applied the call somewhere in that window, so a reply PTTL (and with it a replay's
   * budget and observedServerExpiry) may be that much below what the model, which applies at the
   * frozen instant, predicts; never above it.
   */
  private long lateness() {
    return clock instanceof RealClock real ? Math.max(0, real.liveNanos() - real.trueNanos()) : 0;
  }

  /** Within tol above the model, and within tol plus the step's real time below it. */
  private static boolean near(long actual, long model, long tol, long late) {
    return actual - model <= tol && model - actual <= tol + late;
  }

  /** Every handle against the twin's; on a real server the twin then adopts what it could only approximate. */
  private void compareHandles(Snapshot after, LeaseModel model) {
    long tol = tolerance();
    long late = lateness();
    PropertyViolation.check(after.handles().size() == model.handleCount(), "ModelAgreement",
        "the adapter made " + after.handles().size() + " handles, the model " + model.handleCount());
    for (Snapshot.HandleObs h : after.handles()) {
      int i = h.id();
      LeaseState ms = model.state(i);
      // On a real server a script that ran late replies a shorter PTTL, and the handle's budget is
      // that much shorter than the model's (see lateness): a handle the model still counts ACTIVE
      // within that much of its end may already have run out. The model then adopts the end.
      boolean ranOutLate = !config.exact() && h.state() == LeaseState.LOST && ms == LeaseState.ACTIVE
          && model.remaining(i) <= tol + late;
      PropertyViolation.check(h.state() == ms || ranOutLate, "ModelAgreement",
          "handle " + i + " says " + h.state() + ", the model says " + ms);
      PropertyViolation.check(near(h.remaining(), model.remaining(i), tol, late), "ModelAgreement",
          "handle " + i + " has " + LeaseInvariants.ms(h.remaining()) + " left, the model says "
              + LeaseInvariants.ms(model.remaining(i)));
      Instant observed = handles.get(i).observedServerExpiry();
      long observedNanos = observed.getEpochSecond() * 1_000_000_000L + observed.getNano();
      PropertyViolation.check(near(observedNanos, model.wallExpiry(i), tol, late), "ModelAgreement",
          "handle " + i + " observedServerExpiry is " + LeaseInvariants.ms(observedNanos - LeaseClock.EPOCH_NANOS)
              + " after the epoch, the model (from the reply PTTL) says "
              + LeaseInvariants.ms(model.wallExpiry(i) - LeaseClock.EPOCH_NANOS));
      if (config.exact()) {
        PropertyViolation.check(h.token() == model.token(i), "ModelAgreement",
            "handle " + i + " has token " + h.token() + ", the model says " + model.token(i));
      } else {
        long deadline = h.state() == LeaseState.ACTIVE ? after.clientNow() + h.remaining()
            : ranOutLate ? after.clientNow() : model.deadline(i);
        model.pin(i, deadline, h.token(), observedNanos);
      }
    }
    if (!config.exact()) {
      model.pinServer(after.holder(), (after.expiryLo() + after.expiryHi()) / 2, after.fence());
    }
  }
}
