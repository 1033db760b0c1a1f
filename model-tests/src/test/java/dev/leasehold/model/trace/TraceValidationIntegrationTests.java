package dev.leasehold.model.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.model.properties.ModelSettings;
import dev.leasehold.model.seed.SeedDefect;
import dev.leasehold.model.seed.SeedLeaseAdapter;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.RedisLeaseConfig;
import dev.leasehold.testkit.fault.RealBackend;
import dev.leasehold.testkit.fault.SimBackend;
import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseProperty;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.TraceStep;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.redis.RedisServer;
import dev.leasehold.testkit.runner.PropertyRunner;
import dev.leasehold.testkit.runner.Stats;
import dev.leasehold.testkit.runner.Step;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.trace.SpecTrace;
import dev.leasehold.testkit.trace.TraceCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Trace validation: chains the properties ran on the simulated gateway, written as traces and
 * checked by TLC against spec/tla/Lease.tla (through LeaseTrace.tla). Every trace of the fixed
 * adapter must be accepted; for each seed defect, the trace of the chain the properties found
 * (as found and as shrunk) must be rejected at the very chain step where the properties failed.
 * All traces go to one TLC run.
 */
class TraceValidationIntegrationTests {
  /** One spec tick: the simulated chains move in whole 10 ms steps (WorldConfig.conformingToSpec). */
  private static final long TICK_NANOS = 10_000_000L;
  private static final int PASSING_CHAINS = Integer.getInteger("model.traceChains", 200);
  /** Chains with restarts as well (they waive what a restart breaks: validity, and FencedEffects with COUNTER). */
  private static final int RESTART_CHAINS = PASSING_CHAINS;
  private static final int DEFECT_CHAINS = 200;
  /** Chains on the real server, and their length: real time passes in them (about 0.4 s a chain). */
  private static final int REAL_CHAINS = Integer.getInteger("model.realTraceChains", 40);
  private static final int REAL_STEPS = 30;
  /** The races need an overlapping schedule on a live handle: SeedDefectsUnitTests found them within 122 chains. */
  private static final int RACE_CHAINS = 500;
  /**
   * A chain with batches of two leases, which random chains on the one key hardly make: two
   * attempts' handles live at once need the key lost under the first (a restart). Attempt 0 is
   * acquired and watched, the restart loses its key, attempt 1 is acquired and watched one tick
   * later, and the watchdog then renews both in one batch at each wake, until the server's reply
   * tells attempt 0 its lease is gone.
   */
  private static final List<String> TWO_WATCHED = List.of("newAttempt(shareOwnerWith=0)",
      "newAttempt(shareOwnerWith=0)", "tryAcquire(attempt=0, ttlMs=200, waitMs=0)", "watch(handle=0, ttlMs=200)",
      "restart()", "tryAcquire(attempt=0, ttlMs=200, waitMs=0)", "watch(handle=0, ttlMs=200)",
      "tick(micros=150000)", "tick(micros=150000)", "tick(micros=150000)", "tick(micros=150000)");
  private static final Path TARGET = ModelSettings.target();
  private static final Pattern NOW = Pattern.compile("\\bnow \\|-> (\\d+)");
  private static final Pattern EXPIRY = Pattern.compile("expLo \\|-> (-?\\d+), expHi \\|-> (\\d+)");
  /** The first non-zero entry of an obs event's tok tuple. */
  private static final Pattern TOKEN = Pattern.compile("tok \\|-> <<((?:0, )*)([1-9]\\d*)");

  /** A defect trace: the configuration it is checked in, the chain's trace and the step (1-based) at which the properties failed. */
  private record DefectTrace(SeedDefect defect, Checked checked, String kind, TraceCheck.Trace trace, int failingStep,
      List<String> chain, String violation) {}

  /** How many accepted traces of each configuration get an altered copy, which must be rejected at the altered event. */
  private static final int MUTANTS = 10;

  /**
   * A configuration the traces are checked in: the adapter's fence mode and the spec's Durability
   * and TokensPerTick, what the spec's token 0 is in the chain and the spec's clock at the chain's
   * start (see SpecTrace.of). CLOCK_FLOOR tokens compare exactly: the simulated server's clock
   * starts at LeaseClock.EPOCH_NANOS, a tick is 10,000 of its microseconds, and the chain starts
   * at the spec's tick 1 (the spec's floor at tick 0 is 0, which no server clock shows).
   */
  enum Checked {
    COUNTER(FenceMode.COUNTER, false, 0, false),
    CLOCK_FLOOR(FenceMode.CLOCK_FLOOR, false, 0, false),
    /** The default configuration: CLOCK_FLOOR, and tryAcquire with a wait timeout. */
    WAIT_LOOP(FenceMode.CLOCK_FLOOR, true, 0, false),
    /** replicaAck(1): the simulated server has one replica, which acknowledges every WAIT at once. */
    REPLICA_ACK(FenceMode.COUNTER, false, 1, false),
    /** The default configuration with two threads: a replay beside a renew or a release of its attempt (two lanes). */
    CONCURRENT(FenceMode.CLOCK_FLOOR, true, 0, true),
    /** A real redis-server on real time (SpecTrace.ofRealTime: 1 ms ticks, instants as windows); tokens by value. */
    REAL_SERVER(FenceMode.COUNTER, false, 0, false);

    final FenceMode mode;
    final boolean waits;
    final int replicas;
    final boolean concurrent;
    /** The spec's Lane: 1..lanes. */
    final int lanes;
    final String durability;
    final long tokensPerTick;
    final long tokenZero;
    final long originTicks;
    final boolean real;
    /** The spec's Drift: the adapter's 10 ms in ticks. */
    final int driftTicks;
    /** The spec's Retention: the adapter's default counter retention in ticks. */
    final long retentionTicks;

    Checked(FenceMode mode, boolean waits, int replicas, boolean concurrent) {
      this.mode = mode;
      this.waits = waits;
      this.replicas = replicas;
      this.concurrent = concurrent;
      this.lanes = concurrent ? 2 : 1;
      boolean clock = mode == FenceMode.CLOCK_FLOOR;
      this.durability = replicas > 0 ? "ReplicaAck" : clock ? "ClockFloor" : "Plain";
      this.tokensPerTick = clock ? TICK_NANOS / 1_000 : 1;
      this.tokenZero = clock ? (LeaseClock.EPOCH_NANOS - TICK_NANOS) / 1_000 : 0;
      this.originTicks = clock ? 1 : 0;
      this.real = name().equals("REAL_SERVER");
      this.driftTicks = real ? 10 : 1;
      this.retentionTicks = RedisLeaseConfig.DEFAULT_COUNTER_RETENTION.toNanos() / (real ? 1_000_000 : TICK_NANOS);
    }
  }

  /**
   * A copy of a passing trace with one obs event's clock put one tick ahead, a handle's token one
   * higher, (wait loop) an outcome judged without the honest rule, or (replica ack) a grant reported
   * before its replication.
   */
  private record Mutant(TraceCheck.Trace trace, int alteredEvent) {}

  private static final Map<Checked, List<TraceCheck.Trace>> passing = new EnumMap<>(Checked.class);
  private static final Map<Checked, List<Mutant>> mutants = new EnumMap<>(Checked.class);
  private static final Map<Checked, TraceCheck.Result> results = new EnumMap<>(Checked.class);
  private static final List<DefectTrace> defective = new ArrayList<>();
  private static final Map<String, TraceCheck.Verdict> verdicts = new LinkedHashMap<>();
  /**
   * The watchdog's batches in each configuration's traces of the fixed adapter, counted by what the
   * batch's one call met ({@link #batchKind}), with {@code leases} (all batches' leases) and
   * {@code several} (batches of two leases or more).
   */
  private static final Map<Checked, Map<String, Long>> batches = new EnumMap<>(Checked.class);

  /** What the spec can express: whole ticks; tokens compare exactly in either fence mode. */
  static WorldConfig conforming(PortFactory ports, Checked c) {
    WorldConfig config = WorldConfig.simulated(ports).withFenceMode(c.mode);
    if (c.replicas > 0) {
      config = config.withBackend(() -> {
        SimBackend sim = new SimBackend();
        sim.redis().replicas(c.replicas);
        return sim;
      }, true);
    }
    config = (c.waits ? config : config.withoutWaitLoop()).conformingToSpec();
    return c.concurrent ? config.withConcurrentSteps() : config;
  }

  private static PortFactory fixed(Checked c) {
    return PortFactory.replicaAck(c.replicas);
  }

  /**
   * The chains the real-server properties run (RealRedisLeasePropertiesIntegrationTests: real time
   * in whole ms, TTLs of 50-200 ms), as the spec expresses them: COUNTER tokens, one delayed request
   * at a time, no lag (the client's clock is frozen per step, see SpecTrace.ofRealTime).
   */
  static WorldConfig onRealServer(RealBackend backend) {
    return WorldConfig.simulated(PortFactory.FIXED).withFenceMode(FenceMode.COUNTER).withoutWaitLoop()
        .conformingToSpec().onRealServer(backend).excluding("lag");
  }

  private static TraceCheck.Trace trace(Checked c, String name, List<TraceStep> steps) {
    int attempts = LeaseMachine.SPEC_OWNERS.size();
    return new TraceCheck.Trace(c + ": " + name, c.real ? SpecTrace.ofRealTime(steps, attempts)
        : SpecTrace.of(steps, TICK_NANOS, attempts, c.tokenZero, c.originTicks));
  }

  @BeforeAll
  static void recordAndCheck() throws IOException {
    long seed = ModelSettings.seed();
    for (Checked c : Checked.values()) {
      passing.put(c, new ArrayList<>());
      if (c.real) {
        try (RedisServer redis = RedisServer.start("model-tests-traces"); RealBackend backend = new RealBackend(redis.uri())) {
          record(c, "fixed adapter on a real redis-server", onRealServer(backend), seed, REAL_CHAINS, REAL_STEPS);
        }
      } else {
        record(c, "fixed adapter", conforming(fixed(c), c), seed, PASSING_CHAINS, 50);
        // A restart loses the plain counter (the spec's counterexample to FencedEffects); not the clock floor.
        WorldConfig restarts = conforming(fixed(c), c).withRestarts();
        WorldConfig withRestarts = c.mode == FenceMode.COUNTER ? restarts.waiving(LeaseProperty.FencedEffects) : restarts;
        record(c, "fixed adapter with restarts", withRestarts, seed + 1, RESTART_CHAINS, 50);
        recordChain(c, "fixed adapter, two leases watched after a restart", withRestarts, TWO_WATCHED);
      }
      List<Mutant> altered = new ArrayList<>(passing.get(c).stream().filter(t -> !c.real && t.events().size() >= 20)
          .limit(MUTANTS / 2).map(TraceValidationIntegrationTests::mutant).toList());
      passing.get(c).stream().filter(t -> c.real).map(TraceValidationIntegrationTests::expiryMutant)
          .filter(m -> m != null).limit(MUTANTS / 2).forEach(altered::add);
      passing.get(c).stream().map(TraceValidationIntegrationTests::honestMutant).filter(m -> m != null)
          .limit(MUTANTS / 5).forEach(altered::add);
      passing.get(c).stream().map(TraceValidationIntegrationTests::unreplicatedMutant).filter(m -> m != null)
          .limit(MUTANTS / 5).forEach(altered::add);
      passing.get(c).stream().map(TraceValidationIntegrationTests::laneMutant).filter(m -> m != null)
          .limit(MUTANTS / 5).forEach(altered::add);
      passing.get(c).stream().map(TraceValidationIntegrationTests::tokenMutant).filter(m -> m != null)
          .limit(MUTANTS - altered.size()).forEach(altered::add);
      mutants.put(c, altered);
    }
    for (SeedDefect d : SeedDefect.values()) {
      // A race needs two lanes: the concurrent configuration, without the wait loop (the fixture has none).
      Checked c = d.race() ? Checked.CONCURRENT : Checked.COUNTER;
      // As the seed defects were measured (SeedDefectsUnitTests): without the watchdog.
      WorldConfig config = conforming(SeedLeaseAdapter.factory(LeaseWorld.KEYS, EnumSet.of(d)), c).withoutWaitLoop()
          .withoutLaterActions();
      int chains = d.race() ? RACE_CHAINS : DEFECT_CHAINS;
      PropertyRunner.Failure f = new PropertyRunner<>(new LeaseMachine(config)).printTo(s -> {})
          .run(PropertyRunner.Config.of(seed + d.ordinal(), chains, 50).anyFailureWhileShrinking())
          .failure().orElseThrow(() -> new AssertionError(d + " not found within " + chains + " chains"));
      defective.add(replay(d, c, "found", config, f.chainSeed(), f.original()));
      defective.add(replay(d, c, "shrunk", config, f.chainSeed(), f.shrunk()));
    }
    for (Checked c : Checked.values()) {
      List<TraceCheck.Trace> all = new ArrayList<>(passing.get(c));
      defective.stream().filter(t -> t.checked() == c).forEach(t -> all.add(t.trace()));
      mutants.get(c).forEach(m -> all.add(m.trace()));
      TraceCheck.Result result = TraceCheck.check(TARGET.resolve("trace-validation/" + c), all,
          LeaseMachine.SPEC_OWNERS.stream().map(o -> o + 1).toList(), c.driftTicks, c.durability, c.tokensPerTick,
          c.retentionTicks, c.lanes);
      result.verdicts().forEach(v -> verdicts.put(v.trace().name(), v));
      results.put(c, result);
    }
    writeReport();
  }

  /** Runs {@code chains} chains of the fixed adapter, which must pass, and keeps their traces. */
  private static void record(Checked c, String name, WorldConfig config, long seed, int chains, int steps) {
    List<List<TraceStep>> recorded = new ArrayList<>();
    PropertyRunner.Report report = new PropertyRunner<>(new LeaseMachine(config, recorded::add))
        .run(PropertyRunner.Config.of(seed, chains, steps));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
    for (int k = 0; k < recorded.size(); k++) {
      passing.get(c).add(trace(c, name + ", run seed " + seed + ", chain " + k, recorded.get(k)));
      countBatches(c, recorded.get(k));
    }
  }

  /**
   * Runs one given chain of the fixed adapter, which must pass, and keeps its trace: see
   * {@link #TWO_WATCHED}.
   */
  private static void recordChain(Checked c, String name, WorldConfig config, List<String> chain) {
    List<List<TraceStep>> recorded = new ArrayList<>();
    PropertyRunner.ChainResult r = new PropertyRunner<>(new LeaseMachine(config, recorded::add))
        .replay(0, chain.stream().map(Step::parse).toList(), new Stats());
    assertFalse(r.failed(), () -> name + ": " + r.violation().getMessage());
    passing.get(c).add(trace(c, name, recorded.get(0)));
    countBatches(c, recorded.get(0));
  }

  private static void countBatches(Checked c, List<TraceStep> steps) {
    for (TraceStep s : steps) {
      if (!s.batch().isEmpty()) {
        Map<String, Long> counts = batches.computeIfAbsent(c, x -> new TreeMap<>());
        counts.merge(batchKind(s), 1L, Long::sum);
        counts.merge("leases", (long) s.batch().size(), Long::sum);
        counts.merge("several", s.batch().size() > 1 ? 1L : 0L, Long::sum);
      }
    }
  }

  /** What a batch's one call met: applied, or its fault's action name. */
  private static String batchKind(TraceStep s) {
    return s.calls().get(0).fault() == null ? "applied" : s.calls().get(0).fault().action();
  }

  private static long batches(Checked c, String kind) {
    return batches.getOrDefault(c, Map.of()).entrySet().stream()
        .filter(e -> kind == null ? !e.getKey().equals("leases") && !e.getKey().equals("several") : e.getKey().equals(kind))
        .mapToLong(Map.Entry::getValue).sum();
  }

  /** The trace with the middle obs event claiming a server clock one tick later than it was. */
  private static Mutant mutant(TraceCheck.Trace t) {
    List<SpecTrace.Event> events = new ArrayList<>(t.events());
    int k = events.size() / 2;
    while (!events.get(k).tla().startsWith("[op |-> \"obs\"")) {
      k++;
    }
    SpecTrace.Event e = events.get(k);
    Matcher m = NOW.matcher(e.tla());
    assertTrue(m.find(), e.tla());
    String altered = m.replaceFirst("now |-> " + (Long.parseLong(m.group(1)) + 1));
    events.set(k, new SpecTrace.Event(e.step(), altered));
    return new Mutant(new TraceCheck.Trace(t.name() + ", event " + (k + 1) + " altered", events), k);
  }

  /**
   * (Real time.) The trace with the first obs event (from the middle on) whose key is held claiming
   * the key expires 50 ms later than the window the real clocks gave, or null when none is held.
   */
  private static Mutant expiryMutant(TraceCheck.Trace t) {
    List<SpecTrace.Event> events = new ArrayList<>(t.events());
    for (int k = events.size() / 2; k < events.size(); k++) {
      SpecTrace.Event e = events.get(k);
      Matcher m = EXPIRY.matcher(e.tla());
      if (e.tla().startsWith("[op |-> \"obs\"") && !e.tla().contains("holder |-> 0,") && m.find()) {
        String altered = m.replaceFirst("expLo |-> " + (Long.parseLong(m.group(1)) + 50) + ", expHi |-> "
            + (Long.parseLong(m.group(2)) + 50));
        events.set(k, new SpecTrace.Event(e.step(), altered));
        return new Mutant(new TraceCheck.Trace(t.name() + ", expiry of event " + (k + 1) + " altered", events), k);
      }
    }
    return null;
  }

  /**
   * The trace with the first obs event (from the middle on) that shows a handle's token claiming a
   * token one higher, or null when no such event exists.
   */
  private static Mutant tokenMutant(TraceCheck.Trace t) {
    List<SpecTrace.Event> events = new ArrayList<>(t.events());
    for (int k = events.size() / 2; k < events.size(); k++) {
      SpecTrace.Event e = events.get(k);
      Matcher m = TOKEN.matcher(e.tla());
      if (e.tla().startsWith("[op |-> \"obs\"") && m.find()) {
        String altered = e.tla().substring(0, m.start(2)) + (Long.parseLong(m.group(2)) + 1) + e.tla().substring(m.end(2));
        events.set(k, new SpecTrace.Event(e.step(), altered));
        return new Mutant(new TraceCheck.Trace(t.name() + ", token of event " + (k + 1) + " altered", events), k);
      }
    }
    return null;
  }

  /**
   * The trace with the first wait-loop outcome that the honest rule made Indeterminate claiming
   * no earlier try was ambiguous (what a loop without the rule would report), or null.
   */
  private static Mutant honestMutant(TraceCheck.Trace t) {
    List<SpecTrace.Event> events = new ArrayList<>(t.events());
    for (int k = 0; k < events.size(); k++) {
      SpecTrace.Event e = events.get(k);
      if ((e.tla().startsWith("[op |-> \"deliver\"") || e.tla().startsWith("[op |-> \"notsent\""))
          && e.tla().contains("out |-> \"Indeterminate\"")
          && e.tla().contains("amb |-> TRUE")) {
        events.set(k, new SpecTrace.Event(e.step(), e.tla().replace("amb |-> TRUE", "amb |-> FALSE")));
        return new Mutant(new TraceCheck.Trace(t.name() + ", honest rule of event " + (k + 1) + " dropped", events), k);
      }
    }
    return null;
  }

  /**
   * The trace without its first replicate event: a grant reported before any replica had its
   * token (an adapter that skipped WAIT). The spec must refuse the reply that follows, which now
   * stands where the replicate was; null when the trace has none.
   */
  private static Mutant unreplicatedMutant(TraceCheck.Trace t) {
    List<SpecTrace.Event> events = new ArrayList<>(t.events());
    for (int k = 0; k < events.size(); k++) {
      if (events.get(k).tla().equals("[op |-> \"replicate\"]")) {
        events.remove(k);
        return new Mutant(new TraceCheck.Trace(t.name() + ", replicate event " + (k + 1) + " dropped", events), k);
      }
    }
    return null;
  }

  /**
   * The trace with the first lane-2 send made while lane 1's call was in flight claiming lane 1
   * (a step whose calls did not overlap after all): the spec has lane 1 busy there. Null when no
   * call overlapped.
   */
  private static Mutant laneMutant(TraceCheck.Trace t) {
    List<SpecTrace.Event> events = new ArrayList<>(t.events());
    boolean laneOneInFlight = false;
    for (int k = 0; k < events.size(); k++) {
      String e = events.get(k).tla();
      if (e.startsWith("[op |-> \"send\"") && e.endsWith("l |-> 1]")) {
        laneOneInFlight = true;
      } else if (e.startsWith("[op |-> \"deliver\"") && e.endsWith("l |-> 1]")) {
        laneOneInFlight = false;
      } else if (laneOneInFlight && e.startsWith("[op |-> \"send\"") && e.endsWith("l |-> 2]")) {
        events.set(k, new SpecTrace.Event(events.get(k).step(), e.replace("l |-> 2]", "l |-> 1]")));
        return new Mutant(new TraceCheck.Trace(t.name() + ", lane of event " + (k + 1) + " altered", events), k);
      }
    }
    return null;
  }

  /** How many concurrent steps the traces have, and in how many both lanes had sent before either reply. */
  private static long[] overlaps(List<TraceCheck.Trace> traces) {
    long steps = 0;
    long overlapping = 0;
    for (TraceCheck.Trace t : traces) {
      Map<Integer, List<String>> byStep = new TreeMap<>();
      t.events().stream().filter(e -> e.tla().endsWith("l |-> 1]") || e.tla().endsWith("l |-> 2]"))
          .forEach(e -> byStep.computeIfAbsent(e.step(), k -> new ArrayList<>()).add(e.tla()));
      for (List<String> events : byStep.values()) {
        steps++;
        int sends = 0;
        for (String e : events) {
          if (e.startsWith("[op |-> \"deliver\"")) {
            break;
          }
          sends += e.startsWith("[op |-> \"send\"") ? 1 : 0;
        }
        overlapping += sends == 2 ? 1 : 0;
      }
    }
    return new long[] {steps, overlapping};
  }

  /** Replays a failing chain on a machine that records it; the failing step is the last one run. */
  private static DefectTrace replay(SeedDefect d, Checked c, String kind, WorldConfig config, long chainSeed,
      List<dev.leasehold.testkit.runner.Step> steps) {
    List<List<TraceStep>> recorded = new ArrayList<>();
    LeaseMachine machine = new LeaseMachine(config, recorded::add);
    PropertyRunner<LeaseWorld> runner = new PropertyRunner<>(machine);
    PropertyRunner.ChainResult r = runner.replay(chainSeed, steps, new Stats());
    assertTrue(r.failed(), () -> d + ": the " + kind + " chain no longer fails on replay");
    String name = d + " (" + kind + ", " + r.executed().size() + " steps)";
    return new DefectTrace(d, c, kind, trace(c, name, recorded.get(0)), r.executed().size(),
        runner.renderSteps(r.executed()), r.violation().getMessage());
  }

  @ParameterizedTest
  @EnumSource(Checked.class)
  void everyTraceOfTheFixedAdapterIsAcceptedBySpec(Checked c) {
    List<String> rejected = new ArrayList<>();
    for (TraceCheck.Trace t : passing.get(c)) {
      TraceCheck.Verdict v = verdicts.get(t.name());
      if (!v.accepted()) {
        rejected.add(t.name() + ": left the spec at event " + (v.matched() + 1) + " (chain step "
            + v.rejectedEvent().step() + "): " + v.rejectedEvent().tla() + "\n" + context(t, v.matched()));
      }
    }
    assertEquals(c.real ? REAL_CHAINS : PASSING_CHAINS + RESTART_CHAINS + 1, passing.get(c).size());
    // What makes the configuration differ was exercised: tries the loop retried, answered WAITs.
    if (c.waits) {
      assertTrue(events(c, "out |-> \"retry\"") > 0, c + ": no wait loop retried a try");
    }
    assertEquals(c.replicas > 0, events(c, "[op |-> \"replicate\"]") > 0, c + ": replicate events");
    // The watchdog's renewals were in the traces, batches of several leases among them; not on the
    // real server, whose chains leave the watchdog out (WorldConfig.onRealServer).
    assertEquals(!c.real, batches(c, null) > 0, c + ": watchdog batches " + batches.get(c));
    assertEquals(!c.real, batches(c, "several") > 0, c + ": batches of several leases " + batches.get(c));
    // Two calls of one attempt in flight at once: a lane-2 send while lane 1 had not had its reply.
    assertEquals(c.concurrent, passing.get(c).stream().anyMatch(t -> laneMutant(t) != null), c + ": overlapping lanes");
    assertEquals(List.of(), rejected, "traces of the fixed adapter that Lease.tla does not allow");
  }

  /** The check can fail: a trace that says the clock was one tick off is rejected right there. */
  @ParameterizedTest
  @EnumSource(Checked.class)
  void anAlteredTraceIsRejectedAtTheAlteredEvent(Checked c) {
    assertEquals(MUTANTS, mutants.get(c).size());
    // Each configuration's own kind of alteration is among them.
    List<String> kinds = new ArrayList<>(List.of("token of event"));
    if (c.waits) {
      kinds.add("honest rule of event");
    }
    if (c.replicas > 0) {
      kinds.add("replicate event");
    }
    if (c.concurrent) {
      kinds.add("lane of event");
    }
    if (c.real) {
      kinds.add("expiry of event");
    }
    for (String kind : kinds) {
      assertTrue(mutants.get(c).stream().anyMatch(m -> m.trace().name().contains(kind)), () -> c + ": no " + kind);
    }
    for (Mutant m : mutants.get(c)) {
      TraceCheck.Verdict v = verdicts.get(m.trace().name());
      assertEquals(m.alteredEvent(), v.matched(), () -> m.trace().name() + ": matched " + v.matched() + " events");
    }
  }

  @ParameterizedTest
  @EnumSource(SeedDefect.class)
  void eachDefectTraceIsRejectedAtTheStepWhereThePropertiesFailed(SeedDefect defect) {
    List<DefectTrace> mine = defective.stream().filter(t -> t.defect() == defect).toList();
    assertEquals(2, mine.size());
    for (DefectTrace t : mine) {
      TraceCheck.Verdict v = verdicts.get(t.trace().name());
      assertFalse(v.accepted(), () -> t.trace().name() + " was accepted by the spec; the properties said "
          + t.violation() + ":\n" + String.join("\n", t.chain()));
      SpecTrace.Event e = v.rejectedEvent();
      assertNotNull(e);
      assertEquals(t.failingStep(), e.step(), () -> t.trace().name() + ": the spec rejected event "
          + (v.matched() + 1) + " " + e.tla() + " of step " + e.step() + ", the properties failed at step "
          + t.failingStep() + " (" + t.violation() + ")\n" + String.join("\n", t.chain()) + "\n"
          + context(t.trace(), v.matched()));
    }
  }

  private static long events(Checked c, String containing) {
    return passing.get(c).stream().flatMap(t -> t.events().stream()).filter(e -> e.tla().contains(containing)).count();
  }

  /** The events around index {@code at}, for a failure message. */
  private static String context(TraceCheck.Trace t, int at) {
    List<SpecTrace.Event> ev = t.events();
    StringBuilder b = new StringBuilder();
    for (int k = Math.max(0, at - 8); k < Math.min(ev.size(), at + 2); k++) {
      b.append(k == at ? "  >> " : "     ").append(k + 1).append(" (step ").append(ev.get(k).step()).append(") ")
          .append(ev.get(k).tla()).append('\n');
    }
    return b.toString();
  }

  private static void writeReport() throws IOException {
    StringBuilder md = new StringBuilder("# Trace validation\n\n");
    md.append("One TLC run per configuration checks its traces against spec/tla/Lease.tla via LeaseTrace.tla. "
        + "Expected: every trace of the fixed adapter accepted; every altered copy (one obs event's clock one tick "
        + "ahead, a handle's token one higher, a wait loop's outcome judged without its honest rule, or a grant "
        + "reported before a replica had it) and every seed-defect trace rejected where it was altered or failed.\n\n");
    md.append("| configuration | fixed-adapter traces accepted | rejected | altered copies rejected where expected "
        + "| defect traces rejected where expected | events | distinct states | TLC seconds |\n");
    md.append("|---|---|---|---|---|---|---|---|\n");
    for (Checked c : Checked.values()) {
      TraceCheck.Result result = results.get(c);
      List<TraceCheck.Trace> mine = passing.get(c);
      long accepted = mine.stream().filter(t -> verdicts.get(t.name()).accepted()).count();
      long altered = mutants.get(c).stream().filter(m -> verdicts.get(m.trace().name()).matched() == m.alteredEvent())
          .count();
      List<DefectTrace> defects = defective.stream().filter(t -> t.checked() == c).toList();
      long defectsWhere = defects.stream().filter(t -> {
        SpecTrace.Event e = verdicts.get(t.trace().name()).rejectedEvent();
        return e != null && e.step() == t.failingStep();
      }).count();
      int events = result.verdicts().stream().mapToInt(v -> v.trace().events().size()).sum();
      md.append(String.format("| %s (%s, Durability \"%s\"%s%s%s) | %d of %d | %d | %d of %d | %s | %d | %d | %.1f |%n", c,
          c.mode, c.durability, c.waits ? ", wait loop" : "", c.replicas > 0 ? ", replicaAck(" + c.replicas + ")" : "",
          c.concurrent ? ", concurrent steps on two lanes" : c.real ? ", a real redis-server on real time (1 ms ticks, windows)" : "",
          accepted, mine.size(), mine.size() - accepted, altered, mutants.get(c).size(),
          defects.isEmpty() ? "-" : defectsWhere + " of " + defects.size(), events, result.distinctStates(),
          result.seconds()));
    }
    Map<String, Integer> ops = new TreeMap<>();
    Pattern op = Pattern.compile("^\\[op \\|-> \"(\\w+)\"");
    Pattern out = Pattern.compile("out \\|-> \"(\\w+)\"");
    passing.values().forEach(list -> list.forEach(t -> t.events().forEach(e -> {
      Matcher m = op.matcher(e.tla());
      Matcher o = out.matcher(e.tla());
      if (m.find()) {
        ops.merge(m.group(1) + (m.group(1).equals("deliver") && o.find() ? ":" + o.group(1) : ""), 1, Integer::sum);
      }
    })));
    long[] lanes = overlaps(passing.get(Checked.CONCURRENT));
    md.append("\nCONCURRENT: ").append(lanes[0]).append(" concurrent steps in the fixed adapter's traces, ").append(lanes[1])
        .append(" of them with both calls sent before either reply (each step's two calls are lanes 1 and 2 of the spec).\n");
    md.append("\nThe watchdog's batches in the fixed adapter's traces (by what the one call met; leases: all their "
        + "leases; several: batches of two leases or more): ").append(Arrays.stream(Checked.values())
        .map(c -> c + " " + batches.getOrDefault(c, Map.of())).collect(Collectors.joining(", "))).append(".\n");
    md.append("\nEvents of the fixed adapter's traces by kind: ").append(ops.entrySet().stream()
        .map(x -> x.getKey() + " " + x.getValue()).collect(Collectors.joining(", "))).append("\n\n");
    md.append("Seed defects (the races in CONCURRENT without the wait loop, the rest in COUNTER; chain parameters as "
        + "generated, TTLs and times run on the 10 ms grid):\n");
    md.append("\n| seed defect | configuration | chain | steps | properties failed at step | spec rejected at step | rejected event |\n");
    md.append("|---|---|---|---|---|---|---|\n");
    for (DefectTrace t : defective) {
      TraceCheck.Verdict v = verdicts.get(t.trace().name());
      SpecTrace.Event e = v.rejectedEvent();
      md.append(String.format("| %s | %s | %s | %d | %d | %s | `%s` |%n", t.defect(), t.checked(), t.kind(), t.chain().size(),
          t.failingStep(), e == null ? "accepted" : Integer.toString(e.step()),
          e == null ? "" : e.tla().replace("|", "\\|")));
    }
    md.append("\nShrunk chains:\n\n");
    for (DefectTrace t : defective.stream().filter(t -> t.kind().equals("shrunk")).collect(Collectors.toList())) {
      md.append("```\n").append(t.defect()).append(": ").append(t.violation()).append('\n')
          .append(String.join("\n", t.chain())).append("\n```\n");
    }
    Files.createDirectories(TARGET);
    Files.writeString(TARGET.resolve("trace-validation.md"), md);
    System.out.println(md);
  }
}
