package dev.leasehold.testkit.lease;

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
import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.Interleaving;
import dev.leasehold.testkit.runner.ActionKind;
import dev.leasehold.testkit.runner.Param;
import dev.leasehold.testkit.runner.StateMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The lease properties as a {@link StateMachine}: the actions of spec/tla/Lease.tla (newAttempt,
 * tryAcquire, replay, renew with any TTL, release, inspect, state, tick, lag, pause, effect), every fault,
 * the library's own callers ({@code watch}, {@code withLease}: {@link Supervision}) and, when a config
 * includes them, the {@link #CONCURRENT} steps of two threads (see {@link ConcurrentStep}) and the
 * outside writes ({@code External}), with weights chosen so that a few hundred chains reach every
 * outcome variant. The arguments are drawn by {@link Draws}; each step is decoded into a typed
 * {@link ChainAction}, which {@link LeaseWorld#apply} makes and checks.
 *
 * <p>This class is immutable; each chain gets its own {@link LeaseWorld}.
 */
public final class LeaseMachine implements StateMachine<LeaseWorld> {
  /**
   * The owner of each attempt when a chain conforms to the spec, so that every trace shares one
   * OwnerOf: attempts 0 and 1 share an owner token (as a1, a2 in MCBase.tla), 2 and 4 another.
   */
  public static final List<Integer> SPEC_OWNERS = List.of(0, 0, 1, 2, 1);
  /** Actions added after the seed defects were measured (see model-tests' SeedDefectsUnitTests). */
  public static final List<String> LATER_ACTIONS = List.of(Fault.SLOW_REPLY.action(), ActionName.WATCH.chainName(),
      ActionName.WITH_LEASE.chainName(), Fault.REFUSE_LASTING.action());
  /** The concurrent steps ({@link ConcurrentStep}); off unless a config includes them. */
  public static final List<String> CONCURRENT = List.of(ActionName.RENEW_BESIDE_REPLAY.chainName(),
      ActionName.RELEASE_BESIDE_REPLAY.chainName());

  private final WorldConfig config;
  private final Draws draws;
  private final List<ActionKind<LeaseWorld>> actions;
  private final Consumer<List<TraceStep>> traces;

  public LeaseMachine(WorldConfig config) {
    this(config, t -> {});
  }

  /** A machine that hands each chain's trace to {@code traces} when the chain ends (failed or not). */
  public LeaseMachine(WorldConfig config, Consumer<List<TraceStep>> traces) {
    this.config = config;
    this.draws = new Draws(config);
    this.traces = traces;
    this.actions = build().stream().filter(a -> config.allows(a.name())).toList();
  }

  public WorldConfig config() {
    return config;
  }

  @Override
  public LeaseWorld setUp(long seed) {
    return new LeaseWorld(config, seed);
  }

  @Override
  public void tearDown(LeaseWorld world) {
    traces.accept(world.trace());
    world.close();
  }

  @Override
  public List<ActionKind<LeaseWorld>> actions() {
    return actions;
  }

  /** Nothing left to check: {@link LeaseWorld#apply} checks every invariant after its step. */
  @Override
  public void checkInvariants(LeaseWorld world) {}

  @Override
  public List<String> expectedOutcomes() {
    return ExpectedOutcomes.all().stream().filter(s -> config.allows(s.substring(0, s.indexOf(':')))).toList();
  }

  // ------------------------------------------------------------------ the actions

  /** Draws a step's parameter values (also {@link BatchMachine}'s). */
  interface Generator {
    long[] generate(SplittableRandom r);
  }

  /**
   * A step kind: a step's parameter values (as generated, shrunk or read from a chain file) are
   * decoded into the typed action the world checks and runs.
   */
  record Kind(String name, int weight, List<Param> params, Generator gen, Function<long[], ChainAction> decode)
      implements ActionKind<LeaseWorld> {
    @Override
    public boolean enabled(LeaseWorld w, long[] args) {
      return w.enabled(decode.apply(args));
    }

    @Override
    public long[] generate(LeaseWorld w, SplittableRandom r) {
      return gen == null ? ActionKind.super.generate(w, r) : gen.generate(r);
    }

    @Override
    public String run(LeaseWorld w, long[] args) {
      return w.apply(decode.apply(args)).label();
    }
  }

  private static Kind kind(ActionName name, int weight, List<Param> params, Generator gen,
      Function<long[], ChainAction> decode) {
    return new Kind(name.chainName(), weight, params, gen, decode);
  }

  private static long newest(SplittableRandom r) {
    return r.nextBoolean() ? 0 : r.nextLong(0, 16);
  }

  private long nanos(long micros) {
    return draws.microsOnGrid(micros) * 1_000L;
  }

  private List<ActionKind<LeaseWorld>> build() {
    Param attempt = new Param("attempt", 0, 7);
    Param handle = new Param("handle", 0, 15);
    Param ttlMs = new Param("ttlMs", 1, 400);
    Param waitMs = new Param("waitMs", 0, 200);
    long maxTtl = config.maxTtlMs();
    List<ActionKind<LeaseWorld>> list = new ArrayList<>();
    list.add(kind(ActionName.NEW_ATTEMPT, 4, List.of(new Param("shareOwnerWith", 0, 5)),
        r -> new long[] {config.specConformant() || r.nextInt(4) != 0 ? 0 : r.nextLong(1, 6)},
        a -> new NewAttempt(a[0])));
    list.add(kind(ActionName.TRY_ACQUIRE, 10, List.of(attempt, ttlMs, waitMs),
        r -> new long[] {r.nextLong(0, 8), draws.ttl(r), draws.waitMs(r)},
        a -> new TryAcquire(a[0], draws.ttlOnGrid(a[1]), a[2])));
    list.add(kind(ActionName.REPLAY, 6, List.of(attempt, ttlMs, waitMs),
        r -> new long[] {r.nextLong(0, 8), draws.ttl(r), draws.waitMs(r)},
        a -> new Replay(a[0], draws.ttlOnGrid(a[1]), a[2])));
    list.add(kind(ActionName.RENEW, 10, List.of(handle, ttlMs), r -> new long[] {r.nextLong(0, 16), draws.ttl(r)},
        a -> new Renew(a[0], draws.ttlOnGrid(a[1]))));
    list.add(kind(ActionName.RELEASE, 5, List.of(handle), null, a -> new Release(a[0])));
    list.add(kind(ActionName.INSPECT, 3, List.of(attempt), null, a -> new Inspect(a[0])));
    list.add(kind(ActionName.STATE, 4, List.of(handle), null, a -> new State(a[0])));
    list.add(kind(ActionName.TICK, 12, List.of(new Param("micros", 0, config.maxTimeStepMs() * 1_000)),
        r -> new long[] {draws.step(r, config.maxTimeStepMs())}, a -> new Tick(nanos(a[0]))));
    list.add(kind(ActionName.PAUSE, 2, List.of(new Param("micros", 0, 2 * maxTtl * 1_000)),
        r -> new long[] {draws.step(r, 2 * maxTtl)}, a -> new Pause(nanos(a[0]))));
    list.add(kind(ActionName.LAG, 2, List.of(new Param("lagMicros", 0, config.drift().toMillis() * 1_000)),
        r -> new long[] {draws.step(r, config.drift().toMillis())}, a -> new Lag(nanos(a[0]))));
    for (Fault f : Fault.values()) {
      if (f == Fault.SLOW_REPLY) {
        // Up to twice the longest TTL: a budget can run out in flight, which only the send time tells.
        list.add(new Kind(f.action(), 3, List.of(new Param("micros", 0, 2 * maxTtl * 1_000)),
            r -> new long[] {draws.step(r, 2 * maxTtl)}, a -> new Arm(f, nanos(a[0]))));
      } else {
        list.add(new Kind(f.action(), 3, List.of(), null, a -> new Arm(f, 0)));
      }
    }
    list.add(kind(ActionName.APPLY_LATE, 4, List.of(new Param("index", 0, 3)), null, a -> new ApplyLate(a[0])));
    for (External e : External.values()) {
      list.add(new Kind(e.action(), 1, List.of(ttlMs), r -> new long[] {draws.ttl(r)},
          a -> new Write(e, draws.ttlOnGrid(a[0]))));
    }
    list.add(kind(ActionName.FLUSH_SCRIPTS, 1, List.of(), null, a -> new FlushScripts()));
    list.add(kind(ActionName.RESTART, 2, List.of(), null, a -> new Restart()));
    Param schedule = new Param("schedule", 0, Interleaving.RUNS);
    Param replayTtlMs = new Param("replayTtlMs", 1, 400);
    // The handle counts back from the newest (a live one, mostly), which the races need.
    list.add(kind(ActionName.RENEW_BESIDE_REPLAY, 8, List.of(handle, ttlMs, replayTtlMs, schedule),
        r -> new long[] {newest(r), draws.ttl(r), draws.ttl(r), Interleaving.generate(r)},
        a -> new RenewBesideReplay(a[0], draws.ttlOnGrid(a[1]), draws.ttlOnGrid(a[2]), (int) a[3])));
    list.add(kind(ActionName.RELEASE_BESIDE_REPLAY, 6, List.of(handle, replayTtlMs, schedule),
        r -> new long[] {newest(r), draws.ttl(r), Interleaving.generate(r)},
        a -> new ReleaseBesideReplay(a[0], draws.ttlOnGrid(a[1]), (int) a[2])));
    // The library's own callers (Supervision): up to Supervision.MAX_WATCHED registrations of distinct attempts.
    list.add(kind(ActionName.WATCH, 3, List.of(handle, ttlMs),
        r -> new long[] {newest(r), r.nextLong(config.minTtlMs(), maxTtl + 1)},
        a -> new Watch(a[0], draws.ttlOnGrid(a[1]))));
    Param work = new Param("workMicros", 0, 2 * maxTtl * 1_000);
    list.add(kind(ActionName.WITH_LEASE, 3, List.of(attempt, ttlMs, work, new Param("pauseMicros", 0, 2 * maxTtl * 1_000)),
        r -> new long[] {r.nextLong(0, 8), r.nextLong(config.minTtlMs(), maxTtl + 1),
            draws.step(r, 2 * maxTtl), r.nextBoolean() ? 0 : draws.step(r, 2 * maxTtl)},
        a -> new WithLease(a[0], draws.ttlOnGrid(a[1]), nanos(a[2]), nanos(a[3]))));
    list.add(kind(ActionName.EFFECT, 3, List.of(handle, new Param("stale", 0, 1)), null,
        a -> new Effect(a[0], a[1] == 1)));
    return list;
  }
}
