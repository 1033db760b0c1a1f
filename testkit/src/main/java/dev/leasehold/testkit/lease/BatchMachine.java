package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.runner.ActionKind;
import dev.leasehold.testkit.runner.Param;
import dev.leasehold.testkit.runner.StateMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BiPredicate;

/**
 * The watchdog's batches of several leases as a {@link StateMachine}: chains over
 * {@link BatchWorld#RESOURCES} resources that acquire, watch, let time pass (each wake's renewals go
 * out as one call), release, write a key from outside, arm a fault for the next batch (lost,
 * delayed, refused or slow) and apply a delayed renewal late. Each lease of a batch is judged
 * against its own resource's twin, so a reply given to the wrong lease or a failure given to only
 * some leases of a failed call breaks ModelAgreement (or an invariant) in a chain. TTLs come mostly
 * from a few values and {@code watchAll} watches every resource's lease at one instant, so that
 * leases fall due together and a wake's batch holds several.
 *
 * <p>This class is immutable; each chain gets its own {@link BatchWorld}.
 */
public final class BatchMachine implements StateMachine<BatchWorld> {
  /** The watch TTLs drawn (ms): leases renewed with one TTL come due together again. */
  private static final long[] WATCH_TTLS = {60, 90, 120, 240};

  /** The action that watches every resource's newest handle at once. */
  public static final String WATCH_ALL = "watchAll";

  private final WorldConfig config;
  private final List<ActionKind<BatchWorld>> actions;

  /** Chains on {@code config}'s simulated server, adapter, drift budget and fence mode. */
  public BatchMachine(WorldConfig config) {
    this.config = config;
    this.actions = build();
  }

  @Override
  public BatchWorld setUp(long seed) {
    return new BatchWorld(config, seed);
  }

  @Override
  public void tearDown(BatchWorld world) {
    world.close();
  }

  @Override
  public List<ActionKind<BatchWorld>> actions() {
    return actions;
  }

  /**
   * Nothing left to check: each step checks every resource after each call it makes (the watchdog's
   * listener only records a loss, which is judged after its batch, outside the watchdog).
   */
  @Override
  public void checkInvariants(BatchWorld world) {}

  /**
   * Batches of several leases with each fault, and one whose leases were answered differently;
   * a change that stops them happening fails the coverage check.
   */
  @Override
  public List<String> expectedOutcomes() {
    List<String> all = new ArrayList<>();
    for (String v : List.of("severalApplied", "severalLost", "severalDelayed", "severalRefused", "severalSlow",
        "severalMixed")) {
      all.add(ActionName.TICK.chainName() + ":" + v);
    }
    all.add(ActionName.TRY_ACQUIRE.chainName() + ":Acquired");
    all.add(ActionName.TRY_ACQUIRE.chainName() + ":Contended");
    all.add(ActionName.WATCH.chainName() + ":watching");
    all.add(WATCH_ALL + ":watching3");
    all.add(ActionName.RELEASE.chainName() + ":Released");
    return all;
  }

  /** What a step does, given the parameter values as generated, shrunk or read from a chain file. */
  private interface Body {
    String run(BatchWorld w, long[] args);
  }

  private record Kind(String name, int weight, List<Param> params, LeaseMachine.Generator gen,
      BiPredicate<BatchWorld, long[]> when, Body body) implements ActionKind<BatchWorld> {
    @Override
    public boolean enabled(BatchWorld w, long[] args) {
      return when.test(w, args);
    }

    @Override
    public long[] generate(BatchWorld w, SplittableRandom r) {
      return gen == null ? ActionKind.super.generate(w, r) : gen.generate(r);
    }

    @Override
    public String run(BatchWorld w, long[] args) {
      return body.run(w, args);
    }
  }

  /** A TTL (ms): mostly one of {@link #WATCH_TTLS}, else any in the config's range. */
  private long ttl(SplittableRandom r) {
    return r.nextInt(4) != 0 ? WATCH_TTLS[r.nextInt(WATCH_TTLS.length)]
        : r.nextLong(config.minTtlMs(), config.maxTtlMs() + 1);
  }

  private List<ActionKind<BatchWorld>> build() {
    Param resource = new Param("resource", 0, BatchWorld.RESOURCES - 1);
    Param ttlMs = new Param("ttlMs", config.minTtlMs(), config.maxTtlMs());
    List<ActionKind<BatchWorld>> list = new ArrayList<>();
    list.add(new Kind(ActionName.TRY_ACQUIRE.chainName(), 6, List.of(resource, ttlMs),
        r -> new long[] {r.nextLong(0, BatchWorld.RESOURCES), ttl(r)},
        (w, a) -> w.mayAcquire(a[0]), (w, a) -> w.acquire(a[0], a[1])));
    list.add(new Kind(ActionName.WATCH.chainName(), 4, List.of(resource, ttlMs),
        r -> new long[] {r.nextLong(0, BatchWorld.RESOURCES), ttl(r)},
        (w, a) -> w.mayWatch(a[0]), (w, a) -> w.watch(a[0], a[1])));
    list.add(new Kind(WATCH_ALL, 6, List.of(ttlMs), r -> new long[] {ttl(r)},
        (w, a) -> w.mayWatchAny(), (w, a) -> w.watchAll(a[0])));
    // Mostly short: the renewals of leases watched a few steps apart then still fall due together.
    list.add(new Kind(ActionName.TICK.chainName(), 10, List.of(new Param("micros", 0, config.maxTimeStepMs() * 1_000)),
        r -> new long[] {r.nextInt(3) == 0 ? r.nextLong(0, config.maxTimeStepMs() * 1_000 + 1) : r.nextLong(0, 30_001)},
        (w, a) -> true, (w, a) -> w.tick(a[0] * 1_000L)));
    list.add(new Kind(ActionName.RELEASE.chainName(), 2, List.of(resource), null,
        (w, a) -> w.hasHandle(a[0]), (w, a) -> w.release(a[0])));
    for (External e : List.of(External.DELETE, External.OVERWRITE)) {
      list.add(new Kind(e.action(), 1, List.of(resource, ttlMs), null, (w, a) -> w.hasHandle(a[0]),
          (w, a) -> w.external(e, a[0], a[1])));
    }
    for (Fault f : Fault.values()) {
      // Up to twice the longest TTL: a lease can run out while its batch's reply is on its way.
      List<Param> params = f == Fault.SLOW_REPLY ? List.of(new Param("micros", 0, 2 * config.maxTtlMs() * 1_000))
          : List.of();
      list.add(new Kind(f.action(), 2, params, null, (w, a) -> w.mayArm(),
          (w, a) -> w.arm(f, a.length == 0 ? 0 : a[0] * 1_000L)));
    }
    list.add(new Kind(ActionName.APPLY_LATE.chainName(), 3, List.of(new Param("index", 0, 3)), null,
        (w, a) -> w.hasDelayed(), (w, a) -> w.applyLate(a[0])));
    return list;
  }
}
