package dev.leasehold.model.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.model.properties.ModelSettings;
import dev.leasehold.model.seed.SeedDefect;
import dev.leasehold.model.seed.SeedLeaseAdapter;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.fault.SimBackend;
import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.TraceStep;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.PropertyRunner;
import dev.leasehold.testkit.runner.Stats;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.trace.SpecTrace;
import dev.leasehold.testkit.trace.TraceCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
class TraceValidationUnitTests {
  /** One spec tick: the simulated chains move in whole 10 ms steps (WorldConfig.conformingToSpec). */
  private static final long TICK_NANOS = 10_000_000L;
  private static final int PASSING_CHAINS = Integer.getInteger("model.traceChains", 200);
  /** Chains with restarts as well (they waive what a restart breaks: validity, and FencedEffects with COUNTER). */
  private static final int RESTART_CHAINS = PASSING_CHAINS;
  private static final int DEFECT_CHAINS = 200;
  private static final Path TARGET = ModelSettings.target();
  private static final Pattern NOW = Pattern.compile("\\bnow \\|-> (\\d+)");
  /** The first non-zero entry of an obs event's tok tuple. */
  private static final Pattern TOKEN = Pattern.compile("tok \\|-> <<((?:0, )*)([1-9]\\d*)");

  /** A defect trace: the chain's trace and the step (1-based) at which the properties failed. */
  private record DefectTrace(SeedDefect defect, String kind, TraceCheck.Trace trace, int failingStep,
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
    COUNTER(FenceMode.COUNTER, false, 0),
    CLOCK_FLOOR(FenceMode.CLOCK_FLOOR, false, 0),
    /** The default configuration: CLOCK_FLOOR, and tryAcquire with a wait timeout. */
    WAIT_LOOP(FenceMode.CLOCK_FLOOR, true, 0),
    /** replicaAck(1): the simulated server has one replica, which acknowledges every WAIT at once. */
    REPLICA_ACK(FenceMode.COUNTER, false, 1);

    final FenceMode mode;
    final boolean waits;
    final int replicas;
    final String durability;
    final long tokensPerTick;
    final long tokenZero;
    final long originTicks;

    Checked(FenceMode mode, boolean waits, int replicas) {
      this.mode = mode;
      this.waits = waits;
      this.replicas = replicas;
      boolean clock = mode == FenceMode.CLOCK_FLOOR;
      this.durability = replicas > 0 ? "ReplicaAck" : clock ? "ClockFloor" : "Plain";
      this.tokensPerTick = clock ? TICK_NANOS / 1_000 : 1;
      this.tokenZero = clock ? (LeaseClock.EPOCH_NANOS - TICK_NANOS) / 1_000 : 0;
      this.originTicks = clock ? 1 : 0;
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
    return (c.waits ? config : config.withoutWaitLoop()).conformingToSpec();
  }

  private static PortFactory fixed(Checked c) {
    return PortFactory.replicaAck(c.replicas);
  }

  private static TraceCheck.Trace trace(Checked c, String name, List<TraceStep> steps) {
    return new TraceCheck.Trace(c + ": " + name, SpecTrace.of(steps, TICK_NANOS, LeaseMachine.SPEC_OWNERS.size(),
        c.tokenZero, c.originTicks));
  }

  @BeforeAll
  static void recordAndCheck() throws IOException {
    long seed = ModelSettings.seed();
    for (Checked c : Checked.values()) {
      passing.put(c, new ArrayList<>());
      record(c, "fixed adapter", conforming(fixed(c), c), seed, PASSING_CHAINS);
      // A restart loses the plain counter (the spec's counterexample to FencedEffects); not the clock floor.
      WorldConfig restarts = conforming(fixed(c), c).withRestarts();
      record(c, "fixed adapter with restarts", c.mode == FenceMode.COUNTER ? restarts.waiving("FencedEffects") : restarts,
          seed + 1, RESTART_CHAINS);
      List<Mutant> altered = new ArrayList<>(passing.get(c).stream().filter(t -> t.events().size() >= 20)
          .limit(MUTANTS / 2).map(TraceValidationUnitTests::mutant).toList());
      passing.get(c).stream().map(TraceValidationUnitTests::honestMutant).filter(m -> m != null)
          .limit(MUTANTS / 5).forEach(altered::add);
      passing.get(c).stream().map(TraceValidationUnitTests::unreplicatedMutant).filter(m -> m != null)
          .limit(MUTANTS / 5).forEach(altered::add);
      passing.get(c).stream().map(TraceValidationUnitTests::tokenMutant).filter(m -> m != null)
          .limit(MUTANTS - altered.size()).forEach(altered::add);
      mutants.put(c, altered);
    }
    for (SeedDefect d : SeedDefect.values()) {
      if (d.race()) {
        continue;   // a race needs two lanes, which spec-conformant chains do not record yet
      }
      WorldConfig config = conforming(SeedLeaseAdapter.factory(LeaseWorld.KEYS, EnumSet.of(d)), Checked.COUNTER);
      PropertyRunner.Failure f = new PropertyRunner<>(new LeaseMachine(config)).printTo(s -> {})
          .run(PropertyRunner.Config.of(seed + d.ordinal(), DEFECT_CHAINS, 50).anyFailureWhileShrinking())
          .failure().orElseThrow(() -> new AssertionError(d + " not found within " + DEFECT_CHAINS + " chains"));
      defective.add(replay(d, "found", config, f.chainSeed(), f.original()));
      defective.add(replay(d, "shrunk", config, f.chainSeed(), f.shrunk()));
    }
    for (Checked c : Checked.values()) {
      List<TraceCheck.Trace> all = new ArrayList<>(passing.get(c));
      if (c == Checked.COUNTER) {
        defective.forEach(t -> all.add(t.trace()));
      }
      mutants.get(c).forEach(m -> all.add(m.trace()));
      TraceCheck.Result result = TraceCheck.check(TARGET.resolve("trace-validation/" + c), all,
          LeaseMachine.SPEC_OWNERS.stream().map(o -> o + 1).toList(), 1, c.durability, c.tokensPerTick);
      result.verdicts().forEach(v -> verdicts.put(v.trace().name(), v));
      results.put(c, result);
    }
    writeReport();
  }

  /** Runs {@code chains} chains of the fixed adapter, which must pass, and keeps their traces. */
  private static void record(Checked c, String name, WorldConfig config, long seed, int chains) {
    List<List<TraceStep>> recorded = new ArrayList<>();
    PropertyRunner.Report report = new PropertyRunner<>(new LeaseMachine(config, recorded::add))
        .run(PropertyRunner.Config.of(seed, chains, 50));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
    for (int k = 0; k < recorded.size(); k++) {
      passing.get(c).add(trace(c, name + ", run seed " + seed + ", chain " + k, recorded.get(k)));
    }
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

  /** Replays a failing chain on a machine that records it; the failing step is the last one run. */
  private static DefectTrace replay(SeedDefect d, String kind, WorldConfig config, long chainSeed,
      List<dev.leasehold.testkit.runner.Step> steps) {
    List<List<TraceStep>> recorded = new ArrayList<>();
    LeaseMachine machine = new LeaseMachine(config, recorded::add);
    PropertyRunner<LeaseWorld> runner = new PropertyRunner<>(machine);
    PropertyRunner.ChainResult r = runner.replay(chainSeed, steps, new Stats());
    assertTrue(r.failed(), () -> d + ": the " + kind + " chain no longer fails on replay");
    String name = d + " (" + kind + ", " + r.executed().size() + " steps)";
    return new DefectTrace(d, kind, trace(Checked.COUNTER, name, recorded.get(0)), r.executed().size(),
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
    assertEquals(PASSING_CHAINS + RESTART_CHAINS, passing.get(c).size());
    // What makes the configuration differ was exercised: tries the loop retried, answered WAITs.
    if (c.waits) {
      assertTrue(events(c, "out |-> \"retry\"") > 0, c + ": no wait loop retried a try");
    }
    assertEquals(c.replicas > 0, events(c, "[op |-> \"replicate\"]") > 0, c + ": replicate events");
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
    for (String kind : kinds) {
      assertTrue(mutants.get(c).stream().anyMatch(m -> m.trace().name().contains(kind)), () -> c + ": no " + kind);
    }
    for (Mutant m : mutants.get(c)) {
      TraceCheck.Verdict v = verdicts.get(m.trace().name());
      assertEquals(m.alteredEvent(), v.matched(), () -> m.trace().name() + ": matched " + v.matched() + " events");
    }
  }

  @ParameterizedTest
  @EnumSource(value = SeedDefect.class, mode = EnumSource.Mode.EXCLUDE,
      names = {"RENEW_CAP_AT_REPLY", "RELEASE_CHECK_AT_REPLY"})  // races: SeedDefectsUnitTests, ConcurrentChainsUnitTests
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
      List<DefectTrace> defects = c == Checked.COUNTER ? defective : List.of();
      long defectsWhere = defects.stream().filter(t -> {
        SpecTrace.Event e = verdicts.get(t.trace().name()).rejectedEvent();
        return e != null && e.step() == t.failingStep();
      }).count();
      int events = result.verdicts().stream().mapToInt(v -> v.trace().events().size()).sum();
      md.append(String.format("| %s (%s, Durability \"%s\"%s%s) | %d of %d | %d | %d of %d | %s | %d | %d | %.1f |%n", c,
          c.mode, c.durability, c.waits ? ", wait loop" : "", c.replicas > 0 ? ", replicaAck(" + c.replicas + ")" : "",
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
    md.append("\nEvents of the fixed adapter's traces by kind: ").append(ops.entrySet().stream()
        .map(x -> x.getKey() + " " + x.getValue()).collect(Collectors.joining(", "))).append("\n\n");
    md.append("Seed defects, COUNTER (chain parameters as generated; TTLs and times run on the 10 ms grid):\n");
    md.append("\n| seed defect | chain | steps | properties failed at step | spec rejected at step | rejected event |\n");
    md.append("|---|---|---|---|---|---|\n");
    for (DefectTrace t : defective) {
      TraceCheck.Verdict v = verdicts.get(t.trace().name());
      SpecTrace.Event e = v.rejectedEvent();
      md.append(String.format("| %s | %s | %d | %d | %s | `%s` |%n", t.defect(), t.kind(), t.chain().size(),
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
