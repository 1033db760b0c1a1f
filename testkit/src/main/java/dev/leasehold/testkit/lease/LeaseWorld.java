package dev.leasehold.testkit.lease;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.testkit.fault.Backend;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.sim.RealClock;
import dev.leasehold.testkit.twin.FencedStore;
import dev.leasehold.testkit.twin.LeaseModel;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One chain's world: the server (simulated or real) behind a {@link FaultyGateway}, the adapter
 * under test on the chain's clocks, the {@link LeaseModel} twin, and the adapter's attempts and
 * handles by id. Each action {@link LeaseMachine} takes is made here on both the adapter and the
 * twin; the {@link Oracle} follows the twin and judges every step in {@link #check()}, the
 * {@link TraceRecorder} keeps the steps for trace validation, the {@link InFlightCheck} watches
 * inside every call, and a {@link FencedStore} takes the adapter's effects.
 *
 * <p>This class is not threadsafe; one chain runs on one thread, except in a {@link ConcurrentStep},
 * whose two lanes take turns (never at the same time) under an Interleaving.
 */
public final class LeaseWorld implements AutoCloseable {
  public static final String PURPOSE = "model";
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
  final AdapterAttempts attempts = new AdapterAttempts();
  final AdapterHandles handles;
  private final List<LeaseModel.Sleep> sleeps = new ArrayList<>();
  private final FencedStore store = new FencedStore();
  private final Oracle oracle;
  final TraceRecorder recorder;
  private final InFlightCheck inFlight;
  /** What the step taken did, for the invariants that relate an outcome to the state around it. */
  private StepEvent event;
  /** The adapter's own outcome (or IllegalArgumentException) of the last call, for the watchdog and LeaseRunner. */
  Object lastCall;
  /** The twin's slack (ns), measured once per call and per check: see {@link #measureSlack}. */
  private long stepSlack;
  final Supervision supervision;
  final ServerFaults faults = new ServerFaults(this);

  LeaseWorld(WorldConfig config, long seed) {
    this.config = config;
    this.backend = config.backend().get();
    this.stepSlack = backend.slackNanos();
    this.clock = backend.clock();
    this.gateway = new FaultyGateway(backend.gateway());
    this.handles = new AdapterHandles(backend);
    this.port = config.ports().create(gateway, clock, config.drift(), config.fenceMode(), new SeededRandom(seed),
        (keys, d) -> {
          clock.advance(config.pauseNanos(clock.trueNanos(), d.toNanos()));
          sleeps.add(new LeaseModel.Sleep(d.toNanos(), clock.trueNanos()));
        });
    this.model = new LeaseModel(config.drift().toNanos(), config.fenceMode(), CONTENTION, config.exact(),
        () -> stepSlack);
    this.oracle = new Oracle(config, backend, clock, handles, attempts.owners());
    this.recorder = new TraceRecorder(gateway, attempts, handles,
        clock instanceof RealClock real ? real::liveNanos : clock::trueNanos);
    this.inFlight = new InFlightCheck(this::snapshot, config.waived());
    gateway.whileInFlight(inFlight::check);
    // The twin ticks its own time inside the call (CallModel): only the chain's clock moves here.
    gateway.passTimeWith(clock::advance);
    gateway.stampCallsWith(clock::trueNanos);
    this.supervision = new Supervision(this);
    syncClock();
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

  /** Every action starts here: the chain's step count and what the trace step will record. */
  void beginStep(String action) {
    recorder.begin(action);
  }

  public List<TraceStep> trace() {
    return recorder.trace();
  }

  // ------------------------------------------------------------------ actions

  void newAttempt(int shareWith) {
    model.newAttempt(attempts.add(port, shareWith));
    noEvent("newAttempt");
  }

  String tryAcquire(String op, int attempt, long ttlMs, long waitMs) {
    return acquire(op, attempt, ttlMs, waitMs, () -> port.tryAcquire(new LeaseRequest(PURPOSE, DIGEST,
        Duration.ofMillis(waitMs), Duration.ofMillis(ttlMs), attempts.get(attempt))));
  }

  /** One tryAcquire of {@code attempt}, made by {@code call} (the chain's or LeaseRunner's), followed by the twin. */
  String acquire(String op, int attempt, long ttlMs, long waitMs, Supplier<AcquireOutcome> call) {
    Snapshot before = snapshot();
    sleeps.clear();
    Outcome actual;
    int handle = -1;
    try {
      AcquireOutcome raw = call.get();
      lastCall = raw;
      actual = Outcomes.of(raw, handles::id);
      handle = actual.handle();
      handles.returned(handle, attempt);
    } catch (IllegalArgumentException e) {
      lastCall = e;
      actual = Outcome.of("IllegalArgumentException");
    }
    List<LeaseModel.Sleep> slept = List.copyOf(sleeps);
    List<String> loopProblems = new ArrayList<>();
    follow(m -> m.tryAcquire(attempt, ttlMs, Duration.ofMillis(waitMs).toNanos(), slept, loopProblems), actual);
    loopProblems.forEach(oracle::problem);
    record(op, attempt, handle, actual, before, null, ttlMs);
    return actual.variant();
  }

  String renew(int handle, long ttlMs) {
    Snapshot before = snapshot();
    LeaseState stateBefore = before.handles().get(handle).state();
    Outcome actual;
    try {
      RenewOutcome raw = handles.get(handle).renew(Duration.ofMillis(ttlMs));
      lastCall = raw;
      actual = Outcomes.of(raw);
    } catch (IllegalArgumentException e) {
      lastCall = e;
      actual = Outcome.of("IllegalArgumentException");
    }
    follow(m -> m.renew(handle, ttlMs), actual);
    record("renew", handles.attempt(handle), handle, actual, before, stateBefore, ttlMs);
    return actual.variant();
  }

  String release(int handle) {
    Snapshot before = snapshot();
    LeaseState stateBefore = before.handles().get(handle).state();
    ReleaseOutcome raw = handles.get(handle).release();
    lastCall = raw;
    Outcome actual = Outcomes.of(raw);
    follow(m -> m.release(handle), actual);
    record("release", handles.attempt(handle), handle, actual, before, stateBefore, 0);
    return actual.variant();
  }

  String inspect(int attempt) {
    Snapshot before = snapshot();
    Outcome actual = Outcomes.of(port.inspect(new LeaseInspection(PURPOSE, DIGEST, attempts.get(attempt))), config.exact());
    follow(m -> m.inspect(attempt), actual);
    record("inspect", attempt, -1, actual, before, null, 0);
    return actual.variant();
  }

  String state(int handle) {
    LeaseState s = handles.get(handle).state();
    oracle.state(handle, s, model.state(handle));
    noEvent("state");
    recorder.call(handles.attempt(handle), handle, 0, Outcome.of(s.name()));
    return s.name();
  }

  /** A replay beside a renew or release of one handle, interleaved by {@code schedule} (see {@link ConcurrentStep}). */
  String concurrent(String op, String kind, int handle, long ttlMs, long replayTtlMs, int schedule) {
    return new ConcurrentStep(this, op, kind, handle, ttlMs, replayTtlMs).run(schedule);
  }

  /** Time passes; the watchdog renews when due (see {@link Supervision#passTime}). */
  void tick(long nanos) {
    supervision.passTime(nanos);
    noEvent("tick");
  }

  /** Time passes and nothing runs: a paused process, whose watchdog is paused too. */
  void pause(long nanos) {
    advance(nanos);
    noEvent("pause");
  }

  void advance(long nanos) {
    clock.advance(nanos);
    if (config.exact()) {
      model.tick(nanos);
    } else {
      syncClock();
    }
  }

  void lag(long lagNanos) {
    clock.lag(lagNanos);
    model.setLag(lagNanos);
    noEvent("lag");
  }

  /** A client writes its effect with its handle's token: after checking ACTIVE, or on stale belief. */
  String effect(int handle, boolean stale) {
    noEvent("effect");
    String result = "skipped";
    if (stale || handles.get(handle).state() == LeaseState.ACTIVE) {
      long token = handles.get(handle).fencingToken().orElse(0);
      boolean accepted = store.write(token, handles.grant(handle));
      oracle.effect(handle, token, accepted, model.effect(handle));
      result = accepted ? "accepted" : "rejected";
    }
    recorder.call(handles.attempt(handle), handle, 0, Outcome.of(result));
    return result;
  }

  // ------------------------------------------------------------------ the oracle

  /** The twin takes the step too, on the branch of its choices that gives the adapter's outcome. */
  private void follow(Function<LeaseModel, Outcome> step, Outcome actual) {
    measureSlack();
    model = oracle.follow(model, step, actual);
  }

  /**
   * The twin's slack for what follows, measured once (each branch the oracle explores must see the
   * same): the backend's slack, which on a real server grows with how late steps ran.
   */
  private void measureSlack() {
    stepSlack = backend.slackNanos();
  }

  void record(String op, int attempt, int handle, Outcome actual, Snapshot before, LeaseState stateBefore,
      long ttlMs) {
    event = new StepEvent(op, attempt, handle, actual, before, stateBefore);
    recorder.call(attempt, handle, ttlMs, actual);
  }

  void noEvent(String op) {
    event = StepEvent.none(op, null);
  }

  /** A step that changed the server without a call of the chain's own. */
  void serverEvent(String op, Snapshot before) {
    event = StepEvent.none(op, before);
  }

  /** The implementation's side: the server read directly and every handle asked. */
  Snapshot snapshot() {
    return Snapshot.of(backend, KEYS, clock, attempts, handles);
  }

  /** After every step: the trace step, anything broken while a call was in flight, then the oracle. */
  void check() {
    supervision.rethrow();
    StepEvent e = event == null ? StepEvent.none("none", null) : event;
    Snapshot after = snapshot();
    measureSlack();
    recorder.record(after);
    inFlight.rethrow();
    oracle.check(e, after, store, model);
    for (LeaseHandle h : handles) {
      CallerInvariants.guaranteeAsStated(h.guarantee(), port.guarantee(), h.fencingToken().isPresent());
    }
    event = null;
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
    supervision.close();
    backend.close();
  }
}
