package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.Interleaving;
import dev.leasehold.testkit.runner.ActionKind;
import dev.leasehold.testkit.runner.Param;
import dev.leasehold.testkit.runner.StateMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * The lease properties as a {@link StateMachine}: the actions of spec/tla/Lease.tla (newAttempt,
 * tryAcquire, replay, renew with any TTL, release, inspect, state, tick, lag, pause, effect), every fault,
 * the library's own callers ({@code watch}, {@code withLease}: {@link Supervision}) and, when a config
 * includes them, the {@link #CONCURRENT} steps of two threads (see {@link ConcurrentStep}) and the
 * outside writes ({@code External}), with weights chosen so that a few hundred chains reach every
 * outcome variant. The arguments are drawn by {@link Draws}.
 *
 * <p>This class is immutable; each chain gets its own {@link LeaseWorld}.
 */
public final class LeaseMachine implements StateMachine<LeaseWorld> {
  /** Attempts one chain makes at most; enough for contention and a shared owner. */
  static final int MAX_ATTEMPTS = 5;
  static final int MAX_ARMED = 3;
  /**
   * The owner of each attempt when a chain conforms to the spec, so that every trace shares one
   * OwnerOf: attempts 0 and 1 share an owner token (as a1, a2 in MCBase.tla), 2 and 4 another.
   */
  public static final List<Integer> SPEC_OWNERS = List.of(0, 0, 1, 2, 1);
  /** Actions added after the seed defects were measured (see model-tests' SeedDefectsUnitTests). */
  public static final List<String> LATER_ACTIONS = List.of("slowReply", "watch", "withLease", "refuseLasting");
  /** The concurrent steps ({@link ConcurrentStep}); off unless a config includes them. */
  public static final List<String> CONCURRENT = List.of("renewBesideReplay", "releaseBesideReplay");

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

  @Override
  public void checkInvariants(LeaseWorld world) {
    world.check();
  }

  @Override
  public List<String> expectedOutcomes() {
    return ExpectedOutcomes.all().stream().filter(s -> config.allows(s.substring(0, s.indexOf(':')))).toList();
  }

  // ------------------------------------------------------------------ the actions

  private interface Body {
    String run(LeaseWorld w, long[] args);
  }

  private record Action(String name, int weight, List<Param> params, BiPredicate<LeaseWorld, long[]> pre,
      Generator gen, Body body) implements ActionKind<LeaseWorld> {
    @Override
    public boolean enabled(LeaseWorld w, long[] args) {
      return pre.test(w, args);
    }

    @Override
    public long[] generate(LeaseWorld w, SplittableRandom r) {
      return gen == null ? ActionKind.super.generate(w, r) : gen.generate(r);
    }

    @Override
    public String run(LeaseWorld w, long[] args) {
      w.beginStep(name);
      w.syncClock();
      return body.run(w, args);
    }
  }

  private interface Generator {
    long[] generate(SplittableRandom r);
  }

  /** The attempt to share an owner token with: chosen by the chain, or by SPEC_OWNERS. */
  private int shareWith(LeaseWorld w, long arg) {
    if (!config.specConformant()) {
      return (int) arg - 1;
    }
    int n = w.attempts.size();
    return SPEC_OWNERS.subList(0, n).indexOf(SPEC_OWNERS.get(n));
  }

  /** The spec's set of delayed requests holds one of two equal ones: conforming chains delay one at a time. */
  private boolean mayArm(LeaseWorld w, Fault f) {
    return w.gateway.armedCount() < MAX_ARMED && (!config.specConformant() || f != Fault.TIMEOUT
        || w.gateway.delayed().isEmpty() && !w.gateway.isArmed(Fault.TIMEOUT));
  }

  private static List<Integer> unsent(LeaseWorld w) {
    return IntStream.range(0, w.attempts.size()).filter(a -> !w.model.sent(a)).boxed().toList();
  }

  private List<Integer> replayable(LeaseWorld w) {
    return IntStream.range(0, w.attempts.size())
        .filter(a -> w.model.sent(a) && (!config.specConformant() || w.model.liveHandleOf(a) < 0))
        .boxed().toList();
  }

  private static int pick(List<Integer> from, long arg) {
    return from.get((int) (arg % from.size()));
  }

  private int handle(LeaseWorld w, long arg) {
    List<Integer> ids = pickable(w);
    return ids.get((int) (arg % ids.size()));
  }

  private static long newest(SplittableRandom r) {
    return r.nextBoolean() ? 0 : r.nextLong(0, 16);
  }

  private int fromNewest(LeaseWorld w, long arg) {
    List<Integer> ids = pickable(w);
    return ids.get(ids.size() - 1 - (int) (arg % ids.size()));
  }

  /**
   * The handles an action may use: all, or in a chain that conforms to the spec each attempt's
   * newest, the one the spec's single handle per attempt ({@code hs[a]}) stands for. An attempt
   * gets a second handle only from a replay of a concurrent step that superseded the first.
   */
  private List<Integer> pickable(LeaseWorld w) {
    List<Integer> ids = IntStream.range(0, w.handles.size()).boxed().toList();
    if (!config.specConformant()) {
      return ids;
    }
    return ids.stream().filter(w.handles::isNewest).toList();
  }

  private static boolean hasHandles(LeaseWorld w, long[] a) {
    return !w.handles.isEmpty();
  }

  private List<ActionKind<LeaseWorld>> build() {
    Param attempt = new Param("attempt", 0, 7);
    Param handle = new Param("handle", 0, 15);
    Param ttlMs = new Param("ttlMs", 1, 400);
    Param waitMs = new Param("waitMs", 0, 200);
    List<ActionKind<LeaseWorld>> list = new ArrayList<>();
    list.add(new Action("newAttempt", 4, List.of(new Param("shareOwnerWith", 0, 5)),
        (w, a) -> w.attempts.size() < MAX_ATTEMPTS,
        r -> new long[] {config.specConformant() || r.nextInt(4) != 0 ? 0 : r.nextLong(1, 6)},
        (w, a) -> {
          w.newAttempt(shareWith(w, a[0]));
          return "ok";
        }));
    list.add(new Action("tryAcquire", 10, List.of(attempt, ttlMs, waitMs),
        (w, a) -> !unsent(w).isEmpty(),
        r -> new long[] {r.nextLong(0, 8), draws.ttl(r), draws.waitMs(r)},
        (w, a) -> w.tryAcquire("tryAcquire", pick(unsent(w), a[0]), draws.ttlOnGrid(a[1]), a[2])));
    list.add(new Action("replay", 6, List.of(attempt, ttlMs, waitMs),
        (w, a) -> !replayable(w).isEmpty(),
        r -> new long[] {r.nextLong(0, 8), draws.ttl(r), draws.waitMs(r)},
        (w, a) -> w.tryAcquire("replay", pick(replayable(w), a[0]), draws.ttlOnGrid(a[1]), a[2])));
    list.add(new Action("renew", 10, List.of(handle, ttlMs), LeaseMachine::hasHandles,
        r -> new long[] {r.nextLong(0, 16), draws.ttl(r)},
        (w, a) -> w.renew(handle(w, a[0]), draws.ttlOnGrid(a[1]))));
    list.add(new Action("release", 5, List.of(handle), LeaseMachine::hasHandles, null,
        (w, a) -> w.release(handle(w, a[0]))));
    list.add(new Action("inspect", 3, List.of(attempt), (w, a) -> !w.attempts.isEmpty(), null,
        (w, a) -> w.inspect((int) (a[0] % w.attempts.size()))));
    list.add(new Action("state", 4, List.of(handle), LeaseMachine::hasHandles, null,
        (w, a) -> w.state(handle(w, a[0]))));
    list.add(new Action("tick", 12, List.of(new Param("micros", 0, config.maxTimeStepMs() * 1_000)),
        (w, a) -> true, r -> new long[] {draws.step(r, config.maxTimeStepMs())},
        (w, a) -> {
          w.tick(draws.microsOnGrid(a[0]) * 1_000L);
          return "ok";
        }));
    list.add(new Action("pause", 2, List.of(new Param("micros", 0, 2 * config.maxTtlMs() * 1_000)),
        (w, a) -> true, r -> new long[] {draws.step(r, 2 * config.maxTtlMs())},
        (w, a) -> {
          w.pause(draws.microsOnGrid(a[0]) * 1_000L);
          return "ok";
        }));
    list.add(new Action("lag", 2, List.of(new Param("lagMicros", 0, config.drift().toMillis() * 1_000)),
        // The spec's lag never decreases; the Java clock allows either direction.
        (w, a) -> !config.specConformant() || draws.microsOnGrid(a[0]) * 1_000L >= w.clock.lag(),
        r -> new long[] {draws.step(r, config.drift().toMillis())},
        (w, a) -> {
          w.lag(draws.microsOnGrid(a[0]) * 1_000L);
          return "ok";
        }));
    for (Fault f : Fault.values()) {
      if (f == Fault.SLOW_REPLY) {
        // Up to twice the longest TTL: a budget can run out in flight, which only the send time tells.
        list.add(new Action(f.action(), 3, List.of(new Param("micros", 0, 2 * config.maxTtlMs() * 1_000)),
            (w, a) -> mayArm(w, f), r -> new long[] {draws.step(r, 2 * config.maxTtlMs())},
            (w, a) -> {
              w.faults.arm(f, draws.microsOnGrid(a[0]) * 1_000L);
              return "ok";
            }));
        continue;
      }
      list.add(new Action(f.action(), 3, List.of(), (w, a) -> mayArm(w, f), null,
          (w, a) -> {
            w.faults.arm(f, 0);
            return "ok";
          }));
    }
    list.add(new Action("applyLate", 4, List.of(new Param("index", 0, 3)),
        (w, a) -> !w.gateway.delayed().isEmpty(), null,
        (w, a) -> {
          w.faults.applyLate((int) (a[0] % w.gateway.delayed().size()));
          return "ok";
        }));
    for (External e : External.values()) {
      list.add(new Action(e.action(), 1, List.of(ttlMs), (w, a) -> true, r -> new long[] {draws.ttl(r)},
          (w, a) -> {
            w.faults.external(e, draws.ttlOnGrid(a[0]));
            return "ok";
          }));
    }
    list.add(new Action("flushScripts", 1, List.of(), (w, a) -> true, null, (w, a) -> {
      w.faults.flushScripts();
      return "ok";
    }));
    // The spec's Restart moves both clocks one tick: only while the client clock has no lag to catch up.
    list.add(new Action("restart", 2, List.of(),
        (w, a) -> !config.specConformant() || w.clock.trueNanos() - w.clock.clientNanos() == w.clock.lag(), null,
        (w, a) -> {
          w.faults.restart();
          return "ok";
        }));
    Param schedule = new Param("schedule", 0, Interleaving.RUNS);
    // The handle counts back from the newest (a live one, mostly), which the races need.
    list.add(new Action(CONCURRENT.get(0), 8, List.of(handle, ttlMs, new Param("replayTtlMs", 1, 400), schedule),
        (w, a) -> hasHandles(w, a) && w.gateway.armedCount() == 0,
        r -> new long[] {newest(r), draws.ttl(r), draws.ttl(r), Interleaving.generate(r)},
        (w, a) -> w.concurrent(CONCURRENT.get(0), "renew", fromNewest(w, a[0]), draws.ttlOnGrid(a[1]), draws.ttlOnGrid(a[2]),
            (int) a[3])));
    list.add(new Action(CONCURRENT.get(1), 6, List.of(handle, new Param("replayTtlMs", 1, 400), schedule),
        (w, a) -> hasHandles(w, a) && w.gateway.armedCount() == 0,
        r -> new long[] {newest(r), draws.ttl(r), Interleaving.generate(r)},
        (w, a) -> w.concurrent(CONCURRENT.get(1), "release", fromNewest(w, a[0]), 0, draws.ttlOnGrid(a[1]), (int) a[2])));
    // The library's own callers (Supervision): one registration at a time.
    list.add(new Action("watch", 3, List.of(handle, ttlMs), (w, a) -> hasHandles(w, a) && !w.supervision.watching(),
        r -> new long[] {newest(r), r.nextLong(config.minTtlMs(), config.maxTtlMs() + 1)},
        (w, a) -> w.supervision.watch(fromNewest(w, a[0]), draws.ttlOnGrid(a[1]))));
    Param work = new Param("workMicros", 0, 2 * config.maxTtlMs() * 1_000);
    list.add(new Action("withLease", 3, List.of(attempt, ttlMs, work, new Param("pauseMicros", 0, 2 * config.maxTtlMs() * 1_000)),
        (w, a) -> !unsent(w).isEmpty() && !w.supervision.watching(),
        r -> new long[] {r.nextLong(0, 8), r.nextLong(config.minTtlMs(), config.maxTtlMs() + 1),
            draws.step(r, 2 * config.maxTtlMs()), r.nextBoolean() ? 0 : draws.step(r, 2 * config.maxTtlMs())},
        (w, a) -> w.supervision.withLease(pick(unsent(w), a[0]), draws.ttlOnGrid(a[1]), draws.microsOnGrid(a[2]) * 1_000L,
            draws.microsOnGrid(a[3]) * 1_000L)));
    list.add(new Action("effect", 3, List.of(handle, new Param("stale", 0, 1)), LeaseMachine::hasHandles, null,
        (w, a) -> w.effect(handle(w, a[0]), a[1] == 1)));
    return list;
  }
}
