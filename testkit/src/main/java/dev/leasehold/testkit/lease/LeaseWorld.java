package dev.leasehold.testkit.lease;

import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.testkit.fault.Backend;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.fault.ServerView;
import dev.leasehold.testkit.runner.PropertyViolation;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.sim.RealClock;
import dev.leasehold.testkit.twin.Choices;
import dev.leasehold.testkit.twin.LeaseModel;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One chain's world: the server (simulated or real) behind a {@link FaultyGateway}, the adapter
 * under test on the chain's clocks, the {@link LeaseModel} twin, the fenced effect store, and what
 * the oracles remember between steps. Every adapter call is made on both the adapter and the
 * model; {@link #check()} then runs the shared invariants on both and compares them.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
public final class LeaseWorld implements AutoCloseable {
  static final String PURPOSE = "model";
  static final String DIGEST = "sha256:" + "ab".repeat(32);
  public static final LeaseKeys KEYS = new LeaseKeys("leasehold:lease:v1:{" + PURPOSE + ":" + DIGEST + "}",
      "leasehold:lease:v1:{" + PURPOSE + ":" + DIGEST + "}:fence");
  /** RedisLeaseConfig.DEFAULT_CONTENTION_RETRY_AFTER, which the model must know. */
  static final long CONTENTION = Duration.ofMillis(50).toNanos();

  final WorldConfig config;
  final Backend backend;
  final LeaseClock clock;
  final FaultyGateway gateway;
  final DistributedLeasePort port;
  LeaseModel model;
  final List<LeaseAttempt> attempts = new ArrayList<>();
  final List<Integer> ownerOf = new ArrayList<>();
  final List<LeaseHandle> handles = new ArrayList<>();
  final List<Integer> grantIds = new ArrayList<>();
  /** The attempt behind each handle, as the adapter returned it (not as the model thinks). */
  private final List<Integer> handleAttempts = new ArrayList<>();
  final Map<Integer, LeaseState> terminalSeen = new HashMap<>();
  final Map<Integer, LeaseState> modelTerminalSeen = new HashMap<>();
  final List<LeaseModel.Sleep> sleeps = new ArrayList<>();
  final List<TraceStep> trace = new ArrayList<>();
  private int steps;
  private String stepAction = "none";
  private int stepAttempt = -1;
  private int stepHandle = -1;
  private long stepTtlMs;
  private Outcome stepOutcome = Outcome.of("ok");
  private FaultyGateway.Delayed stepLate;
  long storeHigh;
  int storeLast;
  int storeMax;
  private StepEvent event;
  private StepEvent modelEvent;
  private final List<String> problems = new ArrayList<>();
  /** The first invariant broken while a call was in flight; thrown by {@link #check()} (the adapter must not swallow it). */
  private PropertyViolation inFlightViolation;
  private int owners;

  /**
   * One chain step as trace validation reads it (dev.leasehold.testkit.trace.SpecTrace): the action,
   * its attempt, handle and TTL, its outcome, the gateway calls it made with the fault each met, the
   * delayed request it let through, and the implementation right after it (the same snapshot the
   * invariants read) with each handle's observedServerExpiry in client-clock nanoseconds.
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

  LeaseWorld(WorldConfig config, long seed) {
    this.config = config;
    this.backend = config.backend().get();
    this.clock = backend.clock();
    this.gateway = new FaultyGateway(backend.gateway());
    this.port = config.ports().create(gateway, clock, config.drift(), config.fenceMode(), new SeededRandom(seed),
        (keys, d) -> {
          clock.advance(d.toNanos());
          sleeps.add(new LeaseModel.Sleep(d.toNanos(), clock.trueNanos()));
        });
    this.model = new LeaseModel(config.drift().toNanos(), config.fenceMode(), CONTENTION, config.exact(),
        backend.slackNanos());
    gateway.whileInFlight(this::checkInFlight);
    syncClock();
  }

  /**
   * Inside a call, between the server's step and the reply: what state() and remainingValidity()
   * say now (another thread may ask) must already be within what the server holds. The spec's
   * Observed(a) while a call is in flight: a renew(ttl) caps the deadline at start + ttl - drift,
   * a release makes an ACTIVE handle UNKNOWN.
   */
  private void checkInFlight(String kind) {
    if (inFlightViolation != null) {
      return;
    }
    Snapshot now = snapshot();
    try {
      LeaseInvariants.holding(now, config.waived());
    } catch (PropertyViolation v) {
      inFlightViolation = new PropertyViolation(v.property(),
          "while a " + kind + " was in flight, " + v.getMessage().substring(v.property().length() + 2));
    }
  }

  /** On a real server: freeze the client clock for this step and tell the model. */
  void syncClock() {
    if (!config.exact()) {
      if (clock instanceof RealClock real) {
        real.refreeze();
      }
      model.syncTime(clock.trueNanos(), clock.clientNanos());
    }
  }

  // ------------------------------------------------------------------ actions

  /** Every action starts here: the chain's step count and what the trace step will record. */
  void beginStep(String action) {
    steps++;
    stepAction = action;
    stepAttempt = -1;
    stepHandle = -1;
    stepTtlMs = 0;
    stepOutcome = Outcome.of("ok");
    stepLate = null;
  }

  public List<TraceStep> trace() {
    return List.copyOf(trace);
  }

  void newAttempt(int shareWith) {
    int n = attempts.size();
    LeaseAttempt a;
    int owner;
    if (shareWith >= 0 && n > 0) {
      LeaseAttempt other = attempts.get(shareWith % n);
      a = new LeaseAttempt(other.ownerToken(), "op-" + n);
      owner = ownerOf.get(shareWith % n);
    } else {
      a = port.newAttempt("op-" + n);
      owner = owners++;
    }
    attempts.add(a);
    ownerOf.add(owner);
    model.newAttempt(owner);
    noEvent("newAttempt");
  }

  String tryAcquire(String op, int attempt, long ttlMs, long waitMs) {
    Snapshot before = snapshot();
    sleeps.clear();
    Outcome actual;
    int handle = -1;
    try {
      LeaseRequest request = new LeaseRequest(PURPOSE, DIGEST, Duration.ofMillis(waitMs), Duration.ofMillis(ttlMs),
          attempts.get(attempt));
      actual = Outcomes.of(port.tryAcquire(request), this::handleId);
      handle = actual.handle();
      if (handle == handleAttempts.size()) {
        handleAttempts.add(attempt);
      }
    } catch (IllegalArgumentException e) {
      actual = Outcome.of("IllegalArgumentException");
    }
    List<LeaseModel.Sleep> slept = List.copyOf(sleeps);
    List<String> loopProblems = new ArrayList<>();
    Outcome predicted = predict(m -> m.tryAcquire(attempt, ttlMs, Duration.ofMillis(waitMs).toNanos(), slept,
        loopProblems), actual);
    problems.addAll(loopProblems);
    record(op, attempt, handle, actual, before, null, ttlMs);
    return actual.variant();
  }

  String renew(int handle, long ttlMs) {
    Snapshot before = snapshot();
    LeaseState stateBefore = before.handles().get(handle).state();
    Outcome actual;
    try {
      actual = Outcomes.of(handles.get(handle).renew(Duration.ofMillis(ttlMs)));
    } catch (IllegalArgumentException e) {
      actual = Outcome.of("IllegalArgumentException");
    }
    predict(m -> m.renew(handle, ttlMs), actual);
    record("renew", handleAttempt(handle), handle, actual, before, stateBefore, ttlMs);
    return actual.variant();
  }

  String release(int handle) {
    Snapshot before = snapshot();
    LeaseState stateBefore = before.handles().get(handle).state();
    Outcome actual = Outcomes.of(handles.get(handle).release());
    predict(m -> m.release(handle), actual);
    record("release", handleAttempt(handle), handle, actual, before, stateBefore, 0);
    return actual.variant();
  }

  String inspect(int attempt) {
    Snapshot before = snapshot();
    Outcome actual = Outcomes.of(port.inspect(new LeaseInspection(PURPOSE, DIGEST, attempts.get(attempt))), config.exact());
    predict(m -> m.inspect(attempt), actual);
    record("inspect", attempt, -1, actual, before, null, 0);
    return actual.variant();
  }

  String state(int handle) {
    LeaseState s = handles.get(handle).state();
    LeaseState m = model.state(handle);
    if (s != m) {
      problems.add("state() of handle " + handle + " is " + s + ", the model says " + m);
    }
    noEvent("state");
    traced(handleAttempt(handle), handle, 0, Outcome.of(s.name()));
    return s.name();
  }

  void tick(long nanos) {
    clock.advance(nanos);
    if (config.exact()) {
      model.tick(nanos);
    } else {
      syncClock();
    }
    noEvent("tick");
  }

  void lag(long lagNanos) {
    clock.lag(lagNanos);
    model.setLag(lagNanos);
    noEvent("lag");
  }

  void arm(Fault f) {
    gateway.arm(f);
    model.arm(f);
    noEvent(f.name());
  }

  void applyLate(int index) {
    Snapshot before = snapshot();
    stepLate = gateway.applyLate(index);
    model.applyLate(index);
    event = StepEvent.none("applyLate", before);
  }

  void restart() {
    if (config.specConformant()) {
      // The spec's Restart takes one tick (so ClockFloor tokens keep rising across it).
      long tick = config.timeStepMicros() * 1_000L;
      clock.advance(tick);
      model.tick(tick);
    }
    backend.restart();
    model.restart();
    noEvent("restart");
  }

  void flushScripts() {
    backend.flushScripts();
    noEvent("flushScripts");
  }

  /** A client writes its effect with its handle's token: after checking ACTIVE, or on stale belief. */
  String effect(int handle, boolean stale) {
    if (!stale && handles.get(handle).state() != LeaseState.ACTIVE) {
      noEvent("effect");
      traced(handleAttempt(handle), handle, 0, Outcome.of("skipped"));
      return "skipped";
    }
    long token = handles.get(handle).fencingToken().orElse(0);
    boolean accepted = token > 0 && token >= storeHigh;
    if (accepted) {
      storeHigh = token;
      storeLast = grantIds.get(handle);
      storeMax = Math.max(storeMax, storeLast);
    }
    boolean modelAccepted = model.effect(handle);
    if (accepted != modelAccepted) {
      problems.add("the fenced store " + (accepted ? "accepted" : "rejected") + " token " + token
          + " of handle " + handle + ", the model " + (modelAccepted ? "accepted" : "rejected") + " it");
    }
    noEvent("effect");
    traced(handleAttempt(handle), handle, 0, Outcome.of(accepted ? "accepted" : "rejected"));
    return accepted ? "accepted" : "rejected";
  }

  // ------------------------------------------------------------------ oracles

  private int handleId(LeaseHandle h) {
    for (int i = 0; i < handles.size(); i++) {
      if (handles.get(i) == h) {
        return i;
      }
    }
    handles.add(h);
    long token = h.fencingToken().orElse(0);
    grantIds.add(grantIdOf(token));
    return handles.size() - 1;
  }

  /** The grant behind a token: the latest grant that issued it (the server's ghost log). */
  private int grantIdOf(long token) {
    List<Long> log = backend.grantLog();
    if (log == null) {
      return (int) Math.min(Integer.MAX_VALUE, token);
    }
    for (int i = log.size() - 1; i >= 0; i--) {
      if (log.get(i) == token) {
        return i + 1;
      }
    }
    return 0;
  }

  int handleAttempt(int handle) {
    return handleAttempts.get(handle);
  }

  /**
   * Runs {@code step} on the model, exploring its uncertain choices, and keeps the branch whose
   * outcome the adapter produced. Records a problem when no branch allows it.
   */
  private Outcome predict(Function<LeaseModel, Outcome> step, Outcome actual) {
    List<List<Boolean>> frontier = new ArrayList<>(List.of(List.of()));
    List<Outcome> allowed = new ArrayList<>();
    LeaseModel first = null;
    Outcome firstOut = null;
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
        firstOut = out;
      }
      allowed.add(out);
      if (out.matches(actual, tolerance(), lateness())) {
        copy.choices(new Choices(List.of()));
        model = copy;
        return out;
      }
    }
    problems.add("the adapter returned " + actual + "; the model allows only " + allowed);
    first.choices(new Choices(List.of()));
    model = first;
    return firstOut;
  }

  private long tolerance() {
    return config.exact() ? 0 : backend.slackNanos();
  }

  private void record(String op, int attempt, int handle, Outcome actual, Snapshot before, LeaseState stateBefore,
      long ttlMs) {
    event = new StepEvent(op, attempt, handle, actual, before, stateBefore);
    traced(attempt, handle, ttlMs, actual);
  }

  private void traced(int attempt, int handle, long ttlMs, Outcome outcome) {
    stepAttempt = attempt;
    stepHandle = handle;
    stepTtlMs = ttlMs;
    stepOutcome = outcome;
  }

  /** The step just taken, for trace validation: recorded before the invariants, so a failing step is in it. */
  private void recordTraceStep(Snapshot after) {
    List<Long> observed = new ArrayList<>();
    for (LeaseHandle h : handles) {
      Instant e = h.observedServerExpiry();
      observed.add(e.getEpochSecond() * 1_000_000_000L + e.getNano() - LeaseClock.EPOCH_NANOS);
    }
    int lateAttempt = -1;
    for (int i = 0; stepLate != null && i < attempts.size(); i++) {
      if (attempts.get(i).ownership().equals(stepLate.ownership())) {
        lateAttempt = i;
      }
    }
    trace.add(new TraceStep(steps, stepAction, stepAttempt, stepHandle, stepTtlMs, stepOutcome,
        gateway.drainCalls(), stepLate, lateAttempt, after, observed));
  }

  private void noEvent(String op) {
    event = StepEvent.none(op, null);
  }

  /** The implementation's side: the server read directly and every handle asked. */
  Snapshot snapshot() {
    ServerView v = backend.view(KEYS);
    int holder = -1;
    if (v.held()) {
      holder = -2;
      for (int i = 0; i < attempts.size(); i++) {
        if (attempts.get(i).ownership().equals(v.holder())) {
          holder = i;
        }
      }
    }
    List<Snapshot.HandleObs> obs = new ArrayList<>();
    for (int i = 0; i < handles.size(); i++) {
      LeaseHandle h = handles.get(i);
      LeaseState s = h.state();
      obs.add(new Snapshot.HandleObs(i, handleAttempt(i), s, h.remainingValidity().toNanos(),
          h.fencingToken().orElse(0)));
    }
    return new Snapshot(clock.trueNanos(), clock.clientNanos(), clock.lag(), holder, v.expiryLo(), v.expiryHi(), v.fence(), obs,
        ownerOf, backend.slackNanos());
  }

  /** The model's side, checked by the same invariants. */
  Snapshot modelSnapshot() {
    List<Snapshot.HandleObs> obs = new ArrayList<>();
    for (int i = 0; i < model.handleCount(); i++) {
      obs.add(new Snapshot.HandleObs(i, model.handleAttempt(i), model.state(i), model.remaining(i), model.token(i)));
    }
    int holder = model.holder();
    long expiry = model.expiryNanos();
    return new Snapshot(model.trueNow(), model.clientNow(), model.lag(), holder, expiry, expiry, model.fence(), obs, ownerOf,
        backend.slackNanos());
  }

  /** After every step: the invariants on the implementation, then agreement with the model, then the model's own. */
  void check() {
    StepEvent e = event == null ? StepEvent.none("none", null) : event;
    Snapshot after = snapshot();
    recordTraceStep(after);
    Snapshot before = e.before() == null ? after : e.before();
    StepEvent full = new StepEvent(e.op(), e.attempt(), e.handle(), e.outcome(), before, e.stateBefore());
    if (inFlightViolation != null) {
      PropertyViolation v = inFlightViolation;
      inFlightViolation = null;
      throw v;
    }
    LeaseInvariants.checkAll(full, after, terminalSeen, storeLast, storeMax, config.waived());
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
    compareHandles(after);
    Snapshot m = modelSnapshot();
    if (config.waived().isEmpty()) {
      LeaseInvariants.holding(m, config.waived());
    }
    if (!config.waived().contains("FencedEffects")) {
      LeaseInvariants.fencedEffects(model.storeLast(), model.storeMax());
    }
    event = null;
  }

  /** Within tol above the model, and within tol plus the step's real time below it. */
  private static boolean near(long actual, long model, long tol, long late) {
    return actual - model <= tol && model - actual <= tol + late;
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

  private void compareHandles(Snapshot after) {
    long tol = tolerance();
    long late = lateness();
    PropertyViolation.check(after.handles().size() == model.handleCount(), "ModelAgreement",
        "the adapter made " + after.handles().size() + " handles, the model " + model.handleCount());
    for (Snapshot.HandleObs h : after.handles()) {
      int i = h.id();
      LeaseState ms = model.state(i);
      PropertyViolation.check(h.state() == ms, "ModelAgreement",
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
        model.pin(i, h.state() == LeaseState.ACTIVE ? after.clientNow() + h.remaining() : model.deadline(i),
            h.token(), observedNanos);
      }
    }
    if (!config.exact()) {
      model.pinServer(after.holder(), (after.expiryLo() + after.expiryHi()) / 2, after.fence());
    }
  }

  @Override
  public void close() {
    for (LeaseHandle h : handles) {
      // Leave nothing behind on a shared real server; outcomes no longer matter.
      try {
        if (!config.exact()) {
          h.close();
        }
      } catch (RuntimeException ignored) {
        // The server may be gone after a restart fault; the next chain starts clean anyway.
      }
    }
    backend.close();
  }
}
