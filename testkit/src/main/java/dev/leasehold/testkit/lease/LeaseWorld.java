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
import dev.leasehold.testkit.lease.ChainAction.ApplyLate;
import dev.leasehold.testkit.lease.ChainAction.Arm;
import dev.leasehold.testkit.lease.ChainAction.Effect;
import dev.leasehold.testkit.lease.ChainAction.FlushScripts;
import dev.leasehold.testkit.lease.ChainAction.Inspect;
import dev.leasehold.testkit.lease.ChainAction.Lag;
import dev.leasehold.testkit.lease.ChainAction.NewAttempt;
import dev.leasehold.testkit.lease.ChainAction.Pause;
import dev.leasehold.testkit.lease.ChainAction.Release;
import dev.leasehold.testkit.lease.ChainAction.ReleaseBesideReplay;
import dev.leasehold.testkit.lease.ChainAction.Renew;
import dev.leasehold.testkit.lease.ChainAction.RenewBesideReplay;
import dev.leasehold.testkit.lease.ChainAction.Replay;
import dev.leasehold.testkit.lease.ChainAction.Restart;
import dev.leasehold.testkit.lease.ChainAction.State;
import dev.leasehold.testkit.lease.ChainAction.Tick;
import dev.leasehold.testkit.lease.ChainAction.TryAcquire;
import dev.leasehold.testkit.lease.ChainAction.Watch;
import dev.leasehold.testkit.lease.ChainAction.WithLease;
import dev.leasehold.testkit.lease.ChainAction.Write;
import dev.leasehold.testkit.fault.Backend;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.sim.RealClock;
import dev.leasehold.testkit.twin.FencedStore;
import dev.leasehold.testkit.twin.LeaseModel;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One chain's world: the server (simulated or real) behind a {@link FaultyGateway}, the adapter
 * under test on the chain's clocks, and the adapter's attempts and handles by id. Each
 * {@link ChainAction} is made here ({@link #apply}) on both the adapter and the {@link LeaseModel}
 * twin, which the {@link Oracle} holds and follows and with which it judges every step in
 * {@link #check()}; the {@link TraceRecorder} keeps the steps for trace validation, the
 * {@link InFlightCheck} watches inside every call, and a {@link FencedStore} takes the adapter's
 * effects. The helpers get only what they use: {@link Targets} resolves a chain's choices,
 * {@link ServerFaults} makes the steps that happen to the server, {@link ConcurrentStep} the two-thread
 * steps and {@link Supervision} the library's own callers, the last two calling back through
 * {@link ChainCalls}.
 *
 * <p>This class is not threadsafe; one chain runs on one thread, except in a {@link ConcurrentStep},
 * whose two lanes take turns (never at the same time) under an Interleaving.
 */
public final class LeaseWorld implements AutoCloseable {
  public static final String PURPOSE = "model";
  static final String DIGEST = "sha256:" + "ab".repeat(32);
  public static final LeaseKeys KEYS = new LeaseKeys("leasehold:lease:v1:{" + PURPOSE + ":" + DIGEST + "}");
  /** RedisLeaseConfig.DEFAULT_CONTENTION_RETRY_AFTER, which the model must know. */
  static final long CONTENTION = Duration.ofMillis(50).toNanos();
  /** Attempts one chain makes at most; enough for contention and a shared owner. */
  private static final int MAX_ATTEMPTS = 5;

  private final WorldConfig config;
  private final Backend backend;
  private final LeaseClock clock;
  private final FaultyGateway gateway;
  private final DistributedLeasePort port;
  private final AdapterAttempts attempts = new AdapterAttempts();
  private final AdapterHandles handles;
  private final List<LeaseModel.Sleep> sleeps = new ArrayList<>();
  private final FencedStore store = new FencedStore();
  private final Oracle oracle;
  private final TraceRecorder recorder;
  private final InFlightCheck inFlight;
  private final Targets targets;
  private final Supervision supervision;
  private final ServerFaults faults;
  private final ConcurrentStep concurrent;
  /** What the step taken did, for the invariants that relate an outcome to the state around it. */
  private StepEvent event;
  /** The adapter's own outcome (or IllegalArgumentException) of the last call, for the watchdog and LeaseRunner. */
  private Object lastCall;
  /** GrantedWhenFree of the acquire just made, for the check after it; null when none is pending. */
  private Runnable grantCheck;
  private final UnknownStretch unknown;

  LeaseWorld(WorldConfig config, long seed) {
    this.config = config;
    this.backend = config.backend().get();
    this.clock = backend.clock();
    this.gateway = new FaultyGateway(backend.gateway());
    // The watchdog's renewals go out in batches, as on a real server: Supervision sends each burst.
    gateway.gatherRenewals();
    this.handles = new AdapterHandles(backend);
    this.port = config.ports().create(gateway, clock, config.drift(), config.fenceMode(), new SeededRandom(seed),
        (keys, d) -> {
          clock.advance(config.pauseNanos(clock.trueNanos(), d.toNanos()));
          sleeps.add(new LeaseModel.Sleep(d.toNanos(), clock.trueNanos()));
        });
    this.oracle = new Oracle(config, backend, clock, handles, attempts.owners(), CONTENTION);
    this.recorder = new TraceRecorder(gateway, attempts, handles,
        clock instanceof RealClock real ? real::liveNanos : clock::trueNanos);
    this.inFlight = new InFlightCheck(this::snapshot, config.waived());
    gateway.whileInFlight(inFlight::check);
    // The twin ticks its own time inside the call (CallModel): only the chain's clock moves here.
    gateway.passTimeWith(clock::advance);
    gateway.stampCallsWith(clock::trueNanos);
    this.targets = new Targets(config.specConformant(), attempts, handles, gateway, oracle);
    ChainCalls calls = new Calls();
    this.supervision = new Supervision(calls, clock, attempts, handles, port, oracle,
        config.specConformant() ? config.timeStepMicros() * 1_000L : 1, config.drift().toNanos(), config.callers());
    // A restart takes time: the spec's Restart takes one tick, and CLOCK_FLOOR's guarantee assumes
    // it (a restart within the microsecond of the last grant would issue that token again).
    long restartNanos = config.specConformant() ? config.timeStepMicros() * 1_000L : 1_000_000L;
    this.faults = new ServerFaults(gateway, backend, clock, oracle, recorder, this::snapshot, restartNanos);
    this.concurrent = new ConcurrentStep(calls, recorder, attempts, handles, port, oracle, config.specConformant(),
        config.waived());
    this.unknown = new UnknownStretch(clock.clientNanos());
    syncClock();
  }

  /** On a real server: freeze the client clock for this step and tell the model. */
  private void syncClock() {
    if (!config.exact()) {
      if (clock instanceof RealClock real) {
        real.refreeze();
      }
      oracle.twin().syncTime(clock.trueNanos(), clock.clientNanos());
    }
  }

  public List<TraceStep> trace() {
    return recorder.trace();
  }

  // ------------------------------------------------------------------ the chain's steps

  /**
   * Whether {@code action} may run now: checked when a chain is generated and again when it is
   * replayed, so a shrunk chain skips the steps that no longer make sense.
   */
  boolean enabled(ChainAction action) {
    if (action instanceof NewAttempt) {
      return attempts.size() < MAX_ATTEMPTS;
    } else if (action instanceof TryAcquire) {
      return !targets.unsent().isEmpty();
    } else if (action instanceof Replay) {
      return !targets.replayable().isEmpty();
    } else if (action instanceof Renew || action instanceof Release || action instanceof State
        || action instanceof Effect) {
      return !handles.isEmpty();
    } else if (action instanceof Inspect) {
      return !attempts.isEmpty();
    } else if (action instanceof Lag lag) {
      // The spec's lag never decreases; the Java clock allows either direction.
      return !config.specConformant() || lag.nanos() >= clock.lag();
    } else if (action instanceof Arm arm) {
      return targets.mayArm(arm.fault());
    } else if (action instanceof ApplyLate) {
      return !gateway.delayed().isEmpty();
    } else if (action instanceof Restart) {
      // The spec's Restart moves both clocks one tick: only while the client clock has no lag to catch up.
      return !config.specConformant() || clock.trueNanos() - clock.clientNanos() == clock.lag();
    } else if (action instanceof RenewBesideReplay || action instanceof ReleaseBesideReplay) {
      return !handles.isEmpty() && gateway.armedCount() == 0;
    } else if (action instanceof Watch) {
      return !handles.isEmpty() && supervision.mayWatch();
    } else if (action instanceof WithLease) {
      return !targets.unsent().isEmpty() && !supervision.watching();
    }
    return true;
  }

  /**
   * Makes {@code action} on the adapter and the twin, then checks every invariant; returns the
   * step as the trace records it, with the label the statistics count.
   *
   * @throws dev.leasehold.testkit.runner.PropertyViolation when a property fails in the step or after it
   */
  TraceStep apply(ChainAction action) {
    recorder.begin(action.name());
    syncClock();
    boolean faulted = faultsPending();
    recorder.label(run(action));
    check();
    settle(faulted || faultsPending() || action instanceof Restart || action instanceof Write);
    return recorder.last();
  }

  /**
   * SettlesWhenFaultFree when a step ends ({@code faulted}: a fault was armed or pending around it,
   * or it was one): no handle has stayed UNKNOWN through the fault-free stretch, and no renewal
   * the watchdog sent awaits its reply.
   */
  private void settle(boolean faulted) {
    List<LeaseState> states = new ArrayList<>();
    for (LeaseHandle h : handles) {
      states.add(h.state());
    }
    unknown.stepEnded(clock.clientNanos(), faulted, states);
    supervision.checkSettled();
  }

  /** Whether a fault is armed or a delayed request may still reach the server. */
  private boolean faultsPending() {
    return gateway.armedCount() > 0 || !gateway.delayed().isEmpty();
  }

  /** Whether the fault the next call meets fails it (a slow reply still answers). */
  private boolean nextCallFails() {
    Fault next = gateway.nextFault();
    return next != null && next != Fault.SLOW_REPLY;
  }

  private String run(ChainAction action) {
    if (action instanceof NewAttempt a) {
      oracle.twin().newAttempt(attempts.add(port, targets.shareWith(a.shareOwnerWith())));
      return noEvent(a.name());
    } else if (action instanceof TryAcquire a) {
      return tryAcquire(a.name(), Targets.pick(targets.unsent(), a.attempt()), a.ttlMs(), a.waitMs());
    } else if (action instanceof Replay a) {
      int attempt = Targets.pick(targets.replayable(), a.attempt());
      supervision.disturb(attempt);
      return tryAcquire(a.name(), attempt, a.ttlMs(), a.waitMs());
    } else if (action instanceof Renew a) {
      int handle = targets.handle(a.handle());
      supervision.disturb(handles.attempt(handle));
      return renew(handle, a.ttlMs());
    } else if (action instanceof Release a) {
      int handle = targets.handle(a.handle());
      supervision.disturb(handles.attempt(handle));
      return release(handle);
    } else if (action instanceof Inspect a) {
      return inspect((int) (a.attempt() % attempts.size()));
    } else if (action instanceof State a) {
      return state(targets.handle(a.handle()));
    } else if (action instanceof Tick a) {
      String label = supervision.passTime(a.nanos());
      noEvent(a.name());
      return label;
    } else if (action instanceof Pause a) {
      // Nothing runs: a paused process, whose watchdog is paused too.
      supervision.disturb(-1);
      advance(a.nanos());
      return noEvent(a.name());
    } else if (action instanceof Lag a) {
      clock.lag(a.nanos());
      oracle.twin().setLag(a.nanos());
      return noEvent(a.name());
    } else if (action instanceof Arm a) {
      event = faults.arm(a.fault(), a.nanos());
    } else if (action instanceof ApplyLate a) {
      event = faults.applyLate((int) (a.index() % gateway.delayed().size()));
    } else if (action instanceof Write a) {
      event = faults.external(a.write(), a.ttlMs());
    } else if (action instanceof FlushScripts) {
      event = faults.flushScripts();
    } else if (action instanceof Restart) {
      event = faults.restart();
    } else if (action instanceof RenewBesideReplay a) {
      int handle = targets.fromNewest(a.handle());
      supervision.disturb(handles.attempt(handle));
      // The two lanes' calls are recorded as one step: their TTLs bound the budgets they may give.
      unknown.asked(Math.max(a.ttlMs(), a.replayTtlMs()));
      return concurrent.renewBesideReplay(a.name(), handle, a.ttlMs(), a.replayTtlMs(), a.schedule());
    } else if (action instanceof ReleaseBesideReplay a) {
      int handle = targets.fromNewest(a.handle());
      supervision.disturb(handles.attempt(handle));
      unknown.asked(a.replayTtlMs());
      return concurrent.releaseBesideReplay(a.name(), handle, a.replayTtlMs(), a.schedule());
    } else if (action instanceof Watch a) {
      return supervision.watch(targets.fromNewest(a.handle()), a.ttlMs());
    } else if (action instanceof WithLease a) {
      return supervision.withLease(Targets.pick(targets.unsent(), a.attempt()), a.ttlMs(), a.workNanos(),
          a.pauseNanos());
    } else if (action instanceof Effect a) {
      return effect(targets.handle(a.handle()), a.stale());
    } else {
      throw new IllegalArgumentException("unknown action " + action);
    }
    return "ok";
  }

  private String tryAcquire(String op, int attempt, long ttlMs, long waitMs) {
    return acquire(op, attempt, ttlMs, waitMs, () -> port.tryAcquire(new LeaseRequest(PURPOSE, DIGEST,
        Duration.ofMillis(waitMs), Duration.ofMillis(ttlMs), attempts.get(attempt))));
  }

  /** One tryAcquire of {@code attempt}, made by {@code call} (the chain's or LeaseRunner's), followed by the twin. */
  private String acquire(String op, int attempt, long ttlMs, long waitMs, Supplier<AcquireOutcome> call) {
    Snapshot before = snapshot();
    long waitNanos = Duration.ofMillis(waitMs).toNanos();
    long freeIn = freeIn(before, attempt);
    boolean due = LivenessInvariants.grantDue(freeIn, waitNanos, retryBound(before), nextCallFails(),
        gateway.armedCount() > 0);
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
    oracle.follow(m -> m.tryAcquire(attempt, ttlMs, waitNanos, slept, loopProblems), actual);
    loopProblems.forEach(oracle::problem);
    record(op, attempt, handle, actual, before, null, ttlMs);
    String variant = actual.variant();
    String why = freeIn <= 0 ? "the lease was free as it started"
        : "the lease fell free " + LeaseInvariants.ms(freeIn) + " into a wait of " + waitMs + " ms";
    grantCheck = () -> LivenessInvariants.grantedWhenFree(variant, due, why);
    return variant;
  }

  /**
   * How long after {@code before} the lease is free for {@code attempt}: 0 if it holds the lease
   * or nobody does, when the holder's key expires otherwise; never for another operation of the
   * same owner (OwnerOperationConflict ends a wait at once).
   */
  private static long freeIn(Snapshot before, int attempt) {
    int holder = before.holder();
    if (holder == -1 || holder == attempt) {
      return 0;
    }
    if (holder >= 0 && before.ownerOf().get(holder).equals(before.ownerOf().get(attempt))) {
      return Long.MAX_VALUE;
    }
    return before.expiryHi() - before.trueNow();
  }

  /**
   * The longest a wait loop takes to try again once the key is gone: a key read in its last
   * millisecond answers no PTTL, and the loop pauses up to the contention retryAfter; on the spec's
   * grid every pause ends on the next tick; on a real server the readings' slack.
   */
  private long retryBound(Snapshot before) {
    long grid = config.specConformant() ? config.timeStepMicros() * 1_000L : 0;
    return CONTENTION + Duration.ofMillis(2).toNanos() + grid + before.slack();
  }

  private String renew(int handle, long ttlMs) {
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
    oracle.follow(m -> m.renew(handle, ttlMs), actual);
    record(ActionName.RENEW.chainName(), handles.attempt(handle), handle, actual, before, stateBefore, ttlMs);
    return actual.variant();
  }

  /**
   * The batch's call, then each lease on the twin (one fault for all) and as a renew step: see
   * {@link ChainCalls#renewBatch}. The leases hear back one at a time, in the batch's order, and
   * the implementation is read after each: the trace records that view for the lease's step, as
   * the spec has it after the lease's Deliver, with the later leases still in flight. The twin
   * follows the whole batch at once, so each lease's invariants and the twin's agreement are
   * judged on the implementation after the whole batch.
   */
  private ChainCalls.BatchReply renewBatch(List<ChainCalls.BatchedRenew> batch, Snapshot before) {
    FaultyGateway.SentBatch sent = gateway.sendRenewals();
    List<Integer> sentAttempts = sent.ownerships().stream().map(attempts::withOwnership).toList();
    List<Snapshot> views = new ArrayList<>();
    int answered = 0;
    for (ChainCalls.BatchedRenew b : batch) {
      // A lease the gateway never held (answered without a send) has no reply to wait for.
      int k = sentAttempts.indexOf(handles.attempt(b.handle()));
      for (; answered <= k; answered++) {
        sent.answer(answered);
      }
      views.add(snapshot());
    }
    for (; answered < sent.size(); answered++) {
      sent.answer(answered);
    }
    List<Outcome> actual = batch.stream().map(b -> Outcomes.replied(b.reply())).toList();
    List<LeaseModel.Renewal> renewals = batch.stream().map(b -> new LeaseModel.Renewal(b.handle(), b.ttlMs())).toList();
    oracle.followAll(m -> m.renewBatch(renewals), actual);
    recorder.batch(sent.ownerships());
    // Inside a tick (or any step that let the watchdog run) each lease is recorded as a renew.
    String stepAction = recorder.relabel(ActionName.RENEW.chainName());
    try {
      for (int i = 0; i < batch.size(); i++) {
        ChainCalls.BatchedRenew b = batch.get(i);
        lastCall = b.reply().isDone() && !b.reply().isCompletedExceptionally() ? b.reply().join() : null;
        record(ActionName.RENEW.chainName(), handles.attempt(b.handle()), b.handle(), actual.get(i), before,
            b.stateBefore(), b.ttlMs());
        check(views.get(i));
      }
    } finally {
      recorder.relabel(stepAction);
    }
    return new ChainCalls.BatchReply(sent.flushed(), actual);
  }

  private String release(int handle) {
    Snapshot before = snapshot();
    LeaseState stateBefore = before.handles().get(handle).state();
    ReleaseOutcome raw = handles.get(handle).release();
    lastCall = raw;
    Outcome actual = Outcomes.of(raw);
    oracle.follow(m -> m.release(handle), actual);
    record(ActionName.RELEASE.chainName(), handles.attempt(handle), handle, actual, before, stateBefore, 0);
    return actual.variant();
  }

  private String inspect(int attempt) {
    Snapshot before = snapshot();
    Outcome actual = Outcomes.of(port.inspect(new LeaseInspection(PURPOSE, DIGEST, attempts.get(attempt))), config.exact());
    oracle.follow(m -> m.inspect(attempt), actual);
    record(ActionName.INSPECT.chainName(), attempt, -1, actual, before, null, 0);
    return actual.variant();
  }

  private String state(int handle) {
    LeaseState s = handles.get(handle).state();
    oracle.state(handle, s, oracle.twin().state(handle));
    noEvent(ActionName.STATE.chainName());
    recorder.call(handles.attempt(handle), handle, 0, Outcome.of(s.name()));
    return s.name();
  }

  private void advance(long nanos) {
    clock.advance(nanos);
    if (config.exact()) {
      oracle.twin().tick(nanos);
    } else {
      syncClock();
    }
  }

  /** A client writes its effect with its handle's token: after checking ACTIVE, or on stale belief. */
  private String effect(int handle, boolean stale) {
    noEvent(ActionName.EFFECT.chainName());
    String result = "skipped";
    if (stale || handles.get(handle).state() == LeaseState.ACTIVE) {
      long token = handles.get(handle).fencingToken().orElse(0);
      boolean accepted = store.write(token, handles.grant(handle));
      oracle.effect(handle, token, accepted, oracle.twin().effect(handle));
      result = accepted ? "accepted" : "rejected";
    }
    recorder.call(handles.attempt(handle), handle, 0, Outcome.of(result));
    return result;
  }

  // ------------------------------------------------------------------ the oracle

  private void record(String op, int attempt, int handle, Outcome actual, Snapshot before, LeaseState stateBefore,
      long ttlMs) {
    event = new StepEvent(op, attempt, handle, actual, before, stateBefore);
    unknown.asked(ttlMs);
    recorder.call(attempt, handle, ttlMs, actual);
  }

  /** A step that is not a call: nothing to relate an outcome to. Returns its label, {@code ok}. */
  private String noEvent(String op) {
    event = StepEvent.none(op, null);
    return "ok";
  }

  private Snapshot snapshot() {
    return Snapshot.of(backend, KEYS, clock, attempts, handles);
  }

  /** After every step and every call inside one: the trace step, anything broken while a call was in flight, then the oracle. */
  private void check() {
    check(null);
  }

  /**
   * {@link #check()}, with the trace recording {@code traceView} instead of the snapshot the oracle
   * judges when it is not null: a lease of a batch, read right after its own reply.
   */
  private void check(Snapshot traceView) {
    supervision.rethrow();
    StepEvent e = event == null ? StepEvent.none("none", null) : event;
    Snapshot after = snapshot();
    oracle.measureSlack();
    recorder.record(traceView == null ? after : traceView);
    inFlight.rethrow();
    if (grantCheck != null) {
      // Before the twin's agreement: a port that never grants disagrees with the twin too, and
      // this names what it broke.
      Runnable grant = grantCheck;
      grantCheck = null;
      grant.run();
    }
    oracle.check(e, after, store);
    for (LeaseHandle h : handles) {
      CallerInvariants.guaranteeAsStated(h.guarantee(), port.guarantee(), h.fencingToken().isPresent());
    }
    event = null;
  }

  /** The world's calls as its helpers make them: the same calls as the chain's own, and nothing else. */
  private final class Calls implements ChainCalls {
    @Override
    public String acquire(String op, int attempt, long ttlMs, long waitMs, Supplier<AcquireOutcome> call) {
      return LeaseWorld.this.acquire(op, attempt, ttlMs, waitMs, call);
    }

    @Override
    public String renew(int handle, long ttlMs) {
      return LeaseWorld.this.renew(handle, ttlMs);
    }

    @Override
    public int queuedRenewals() {
      return gateway.queuedRenewals();
    }

    @Override
    public ChainCalls.BatchReply renewBatch(List<ChainCalls.BatchedRenew> batch, Snapshot before) {
      return LeaseWorld.this.renewBatch(batch, before);
    }

    @Override
    public String release(int handle) {
      return LeaseWorld.this.release(handle);
    }

    @Override
    public Object lastCall() {
      return lastCall;
    }

    @Override
    public Snapshot snapshot() {
      return LeaseWorld.this.snapshot();
    }

    @Override
    public void record(String op, int attempt, int handle, Outcome actual, Snapshot before, LeaseState stateBefore,
        long ttlMs) {
      LeaseWorld.this.record(op, attempt, handle, actual, before, stateBefore, ttlMs);
    }

    @Override
    public void check() {
      LeaseWorld.this.check();
    }

    @Override
    public boolean faultsPending() {
      return LeaseWorld.this.faultsPending();
    }

    @Override
    public void advance(long nanos) {
      LeaseWorld.this.advance(nanos);
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
    supervision.close();
    backend.close();
  }
}
