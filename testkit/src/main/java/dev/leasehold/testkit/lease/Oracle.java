package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.fault.Backend;
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
import java.util.function.Supplier;

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
  /** What is checked; {@link #waive} takes invariants out once an outside write breaks them by definition. */
  private WorldConfig config;
  private final Backend backend;
  private final LeaseClock clock;
  private final AdapterHandles handles;
  private final List<Integer> ownerOf;
  /** Each handle's LOST or RELEASED once a check saw it (TerminalStays). */
  private final Map<Integer, LeaseState> terminalSeen = new HashMap<>();
  private final List<String> problems = new ArrayList<>();
  /** The twin on the branch the adapter took so far: each followed call replaces it with a copy. */
  private LeaseModel twin;
  /** The twin's slack (ns), measured once per call and per check: see {@link #measureSlack}. */
  private long slack;

  /**
   * Reads the chain's adapter handles and owners (by id) as they grow; {@code contentionNanos} is
   * how long the adapter tells a contender to wait, which the twin must know.
   */
  Oracle(WorldConfig config, Backend backend, LeaseClock clock, AdapterHandles handles, List<Integer> ownerOf,
      long contentionNanos) {
    this.config = config;
    this.backend = backend;
    this.clock = clock;
    this.handles = handles;
    this.ownerOf = ownerOf;
    this.slack = backend.slackNanos();
    this.twin = new LeaseModel(config.drift().toNanos(), config.fenceMode(), contentionNanos, config.exact(),
        () -> slack);
  }

  /** The twin as it stands: actions that are not calls (time, faults, outside writes) are made on it directly. */
  LeaseModel twin() {
    return twin;
  }

  /**
   * The twin's slack for what follows, measured once per call and per check (each branch
   * {@link #follow} explores must see the same): the backend's slack, which on a real server grows
   * with how late steps ran.
   */
  void measureSlack() {
    slack = backend.slackNanos();
  }

  /**
   * From now on {@code invariants} are not checked on this resource: an outside write took its key
   * from under the handles, which breaks them by definition (see {@link WorldConfig#withExternalWrites}).
   */
  void waive(LeaseProperty... invariants) {
    config = config.waiving(invariants);
  }

  /** A disagreement between the adapter and the twin, reported by the next {@link #check}. */
  void problem(String problem) {
    problems.add(problem);
  }

  /**
   * The twin takes the call too, on the branch of its choices that gives the adapter's outcome
   * {@code actual}. When no branch allows it, records a problem and keeps the first branch.
   */
  void follow(Function<LeaseModel, Outcome> step, Outcome actual) {
    measureSlack();
    twin = explore(twin, m -> List.of(step.apply(m)), List.of(actual));
  }

  /**
   * The twin takes a call of several leases (a batch of renewals), on the branch of its choices
   * that gives every lease the adapter's outcome, in order.
   */
  void followAll(Function<LeaseModel, List<Outcome>> step, List<Outcome> actual) {
    measureSlack();
    twin = explore(twin, step, actual);
  }

  /**
   * Runs {@code step} on copies of {@code model}, exploring its uncertain choices, and returns the
   * copy whose outcome the adapter produced, or the first branch when none does.
   */
  private LeaseModel explore(LeaseModel model, Function<LeaseModel, List<Outcome>> step, List<Outcome> actual) {
    List<List<Boolean>> frontier = new ArrayList<>(List.of(List.of()));
    List<Object> allowed = new ArrayList<>();
    LeaseModel first = null;
    for (int explored = 0; !frontier.isEmpty() && explored < 32; explored++) {
      List<Boolean> forced = frontier.remove(0);
      LeaseModel copy = model.copy();
      Choices choices = new Choices(forced);
      copy.choices(choices);
      List<Outcome> out = step.apply(copy);
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
      allowed.add(out.size() == 1 ? out.get(0) : out);
      if (matches(out, actual)) {
        copy.choices(new Choices(List.of()));
        return copy;
      }
    }
    problems.add("the adapter returned " + (actual.size() == 1 ? actual.get(0) : actual) + "; the model allows only "
        + allowed);
    first.choices(new Choices(List.of()));
    return first;
  }

  private boolean matches(List<Outcome> model, List<Outcome> actual) {
    if (model.size() != actual.size()) {
      return false;
    }
    for (int i = 0; i < model.size(); i++) {
      if (!model.get(i).matches(actual.get(i), tolerance(), lateness())) {
        return false;
      }
    }
    return true;
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
  void check(StepEvent event, Snapshot after, FencedStore store) {
    LeaseModel model = twin;
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
      throw LeaseProperty.ModelAgreement.violated(msg);
    }
    compareHandles(after, model);
    // Built even when waived: reading the twin's handles stores a local expiry, as state() does.
    Snapshot twin = modelSnapshot(model);
    if (config.waived().isEmpty()) {
      LeaseInvariants.holding(twin, config.waived());
    }
    if (!config.waived().contains(LeaseProperty.FencedEffects)) {
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

  /**
   * The twin adopts every handle's state and then the server's key (read by {@code snapshot}), after a step it could
   * not follow (two interleaved calls). A handle the twin could not place is taken as granted now:
   * the server's report, capped by its attempt's renews and by {@code renewCapMs} (the TTL of a
   * renew that flew in the step, else {@link Long#MAX_VALUE}), less the drift.
   */
  void adopt(Supplier<Snapshot> snapshot, long renewCapMs) {
    long cnow = clock.clientNanos();
    long wallNow = nanos(clock.wall().instant());
    long drift = config.drift().toNanos();
    for (int i = 0; i < handles.size(); i++) {
      LeaseHandle h = handles.get(i);
      LeaseState s = h.state();
      long observed = nanos(h.observedServerExpiry());
      boolean known = i < twin.handleCount();
      long deadline;
      if (s == LeaseState.ACTIVE) {
        deadline = cnow + h.remainingValidity().toNanos();
      } else if (known && twin.wallExpiry(i) == observed) {
        deadline = twin.deadline(i);
      } else {
        long capMs = Math.min(twin.ambiguousRenewCap(handles.attempt(i)), renewCapMs);
        deadline = cnow + Math.min(observed - wallNow, Math.min(capMs, Long.MAX_VALUE / 2_000_000L) * 1_000_000L) - drift;
      }
      twin.adoptHandle(i, handles.attempt(i), handles.grant(i), s, deadline, h.fencingToken().orElse(0), observed);
    }
    Snapshot now = snapshot.get();
    List<Long> log = backend.grantLog();
    twin.adoptServer(now.holder(), (now.expiryLo() + now.expiryHi()) / 2, now.fence(), log == null ? -1 : log.size());
  }

  private static long nanos(Instant i) {
    return i.getEpochSecond() * 1_000_000_000L + i.getNano();
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
    LeaseProperty.ModelAgreement.require(after.handles().size() == model.handleCount(),
        () -> "the adapter made " + after.handles().size() + " handles, the model " + model.handleCount());
    for (Snapshot.HandleObs h : after.handles()) {
      int i = h.id();
      LeaseState ms = model.state(i);
      // On a real server a script that ran late replies a shorter PTTL, and the handle's budget is
      // that much shorter than the model's (see lateness): a handle the model still counts ACTIVE
      // within that much of its end may already have run out. The model then adopts the end.
      boolean ranOutLate = !config.exact() && h.state() == LeaseState.LOST && ms == LeaseState.ACTIVE
          && model.remaining(i) <= tol + late;
      LeaseProperty.ModelAgreement.require(h.state() == ms || ranOutLate,
          () -> "handle " + i + " says " + h.state() + ", the model says " + ms);
      LeaseProperty.ModelAgreement.require(near(h.remaining(), model.remaining(i), tol, late),
          () -> "handle " + i + " has " + LeaseInvariants.ms(h.remaining()) + " left, the model says "
              + LeaseInvariants.ms(model.remaining(i)));
      long observedNanos = nanos(handles.get(i).observedServerExpiry());
      LeaseProperty.ModelAgreement.require(near(observedNanos, model.wallExpiry(i), tol, late),
          () -> "handle " + i + " observedServerExpiry is " + LeaseInvariants.ms(observedNanos - LeaseClock.EPOCH_NANOS)
              + " after the epoch, the model (from the reply PTTL) says "
              + LeaseInvariants.ms(model.wallExpiry(i) - LeaseClock.EPOCH_NANOS));
      if (config.exact()) {
        LeaseProperty.ModelAgreement.require(h.token() == model.token(i),
            () -> "handle " + i + " has token " + h.token() + ", the model says " + model.token(i));
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
