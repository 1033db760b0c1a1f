package dev.leasehold.model.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.model.properties.ModelSettings;
import dev.leasehold.model.seed.SeedDefect;
import dev.leasehold.model.seed.SeedLeaseAdapter;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.TraceStep;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.PropertyRunner;
import dev.leasehold.testkit.runner.Stats;
import dev.leasehold.testkit.trace.SpecTrace;
import dev.leasehold.testkit.trace.TraceCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

  /** A defect trace: the chain's trace and the step (1-based) at which the properties failed. */
  private record DefectTrace(SeedDefect defect, String kind, TraceCheck.Trace trace, int failingStep,
      List<String> chain, String violation) {}

  /** How many accepted traces get an altered copy, which must be rejected at the altered event. */
  private static final int MUTANTS = 10;

  /** A copy of a passing trace with one obs event's clock put one tick ahead. */
  private record Mutant(TraceCheck.Trace trace, int alteredEvent) {}

  private static final List<TraceCheck.Trace> passing = new ArrayList<>();
  private static final List<Mutant> mutants = new ArrayList<>();
  private static final List<DefectTrace> defective = new ArrayList<>();
  private static final Map<String, TraceCheck.Verdict> verdicts = new LinkedHashMap<>();
  private static TraceCheck.Result result;

  /** What the spec can express: whole ticks, no wait loop, a plain counter so tokens compare exactly. */
  static WorldConfig conforming(PortFactory ports) {
    return WorldConfig.simulated(ports).withoutWaitLoop().withFenceMode(FenceMode.COUNTER).conformingToSpec();
  }

  private static TraceCheck.Trace trace(String name, List<TraceStep> steps) {
    return new TraceCheck.Trace(name, SpecTrace.of(steps, TICK_NANOS, LeaseMachine.SPEC_OWNERS.size()));
  }

  @BeforeAll
  static void recordAndCheck() throws IOException {
    long seed = ModelSettings.seed();
    record("fixed adapter", conforming(PortFactory.FIXED), seed, PASSING_CHAINS);
    record("fixed adapter with restarts", conforming(PortFactory.FIXED).withRestarts().waiving("FencedEffects"),
        seed + 1, RESTART_CHAINS);
    for (SeedDefect d : SeedDefect.values()) {
      if (d.race()) {
        continue;   // a race needs two lanes, which spec-conformant chains do not record yet
      }
      WorldConfig config = conforming(SeedLeaseAdapter.factory(LeaseWorld.KEYS, EnumSet.of(d)));
      PropertyRunner.Failure f = new PropertyRunner<>(new LeaseMachine(config)).printTo(s -> {})
          .run(PropertyRunner.Config.of(seed + d.ordinal(), DEFECT_CHAINS, 50).anyFailureWhileShrinking())
          .failure().orElseThrow(() -> new AssertionError(d + " not found within " + DEFECT_CHAINS + " chains"));
      defective.add(replay(d, "found", config, f.chainSeed(), f.original()));
      defective.add(replay(d, "shrunk", config, f.chainSeed(), f.shrunk()));
    }
    for (TraceCheck.Trace t : passing) {
      if (mutants.size() < MUTANTS && t.events().size() >= 20) {
        mutants.add(mutant(t));
      }
    }
    List<TraceCheck.Trace> all = new ArrayList<>(passing);
    defective.forEach(t -> all.add(t.trace()));
    mutants.forEach(m -> all.add(m.trace()));
    result = TraceCheck.check(TARGET.resolve("trace-validation"), all,
        LeaseMachine.SPEC_OWNERS.stream().map(o -> o + 1).toList(), 1);
    result.verdicts().forEach(v -> verdicts.put(v.trace().name(), v));
    writeReport();
  }

  /** Runs {@code chains} chains of the fixed adapter, which must pass, and keeps their traces. */
  private static void record(String name, WorldConfig config, long seed, int chains) {
    List<List<TraceStep>> recorded = new ArrayList<>();
    PropertyRunner.Report report = new PropertyRunner<>(new LeaseMachine(config, recorded::add))
        .run(PropertyRunner.Config.of(seed, chains, 50));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
    for (int k = 0; k < recorded.size(); k++) {
      passing.add(trace(name + ", run seed " + seed + ", chain " + k, recorded.get(k)));
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

  /** Replays a failing chain on a machine that records it; the failing step is the last one run. */
  private static DefectTrace replay(SeedDefect d, String kind, WorldConfig config, long chainSeed,
      List<dev.leasehold.testkit.runner.Step> steps) {
    List<List<TraceStep>> recorded = new ArrayList<>();
    LeaseMachine machine = new LeaseMachine(config, recorded::add);
    PropertyRunner<LeaseWorld> runner = new PropertyRunner<>(machine);
    PropertyRunner.ChainResult r = runner.replay(chainSeed, steps, new Stats());
    assertTrue(r.failed(), () -> d + ": the " + kind + " chain no longer fails on replay");
    String name = d + " (" + kind + ", " + r.executed().size() + " steps)";
    return new DefectTrace(d, kind, trace(name, recorded.get(0)), r.executed().size(),
        runner.renderSteps(r.executed()), r.violation().getMessage());
  }

  @Test
  void everyTraceOfTheFixedAdapterIsAcceptedBySpec() {
    List<String> rejected = new ArrayList<>();
    for (TraceCheck.Trace t : passing) {
      TraceCheck.Verdict v = verdicts.get(t.name());
      if (!v.accepted()) {
        rejected.add(t.name() + ": left the spec at event " + (v.matched() + 1) + " (chain step "
            + v.rejectedEvent().step() + "): " + v.rejectedEvent().tla() + "\n" + context(t, v.matched()));
      }
    }
    assertEquals(PASSING_CHAINS + RESTART_CHAINS, passing.size());
    assertEquals(List.of(), rejected, "traces of the fixed adapter that Lease.tla does not allow");
  }

  /** The check can fail: a trace that says the clock was one tick off is rejected right there. */
  @Test
  void anAlteredTraceIsRejectedAtTheAlteredEvent() {
    assertEquals(MUTANTS, mutants.size());
    for (Mutant m : mutants) {
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
    int events = result.verdicts().stream().mapToInt(v -> v.trace().events().size()).sum();
    long accepted = passing.stream().filter(t -> verdicts.get(t.name()).accepted()).count();
    StringBuilder md = new StringBuilder("# Trace validation\n\n");
    md.append(String.format("One TLC run checked %d traces (%d events) against spec/tla/Lease.tla via LeaseTrace.tla "
        + "in %.1f s (%d distinct states).%n%n", result.verdicts().size(), events, result.seconds(),
        result.distinctStates()));
    md.append(String.format("- fixed adapter: %d of %d chains accepted%n", accepted, passing.size()));
    Map<String, Integer> ops = new TreeMap<>();
    Pattern op = Pattern.compile("^\\[op \\|-> \"(\\w+)\"");
    Pattern out = Pattern.compile("out \\|-> \"(\\w+)\"");
    passing.forEach(t -> t.events().forEach(e -> {
      Matcher m = op.matcher(e.tla());
      Matcher o = out.matcher(e.tla());
      if (m.find()) {
        ops.merge(m.group(1) + (m.group(1).equals("deliver") && o.find() ? ":" + o.group(1) : ""), 1, Integer::sum);
      }
    }));
    md.append("  - their events by kind: ").append(ops.entrySet().stream().map(x -> x.getKey() + " " + x.getValue())
        .collect(Collectors.joining(", "))).append('\n');
    md.append(String.format("- altered copies (one obs event's clock one tick ahead): %d of %d rejected at the "
        + "altered event%n", mutants.stream().filter(m -> verdicts.get(m.trace().name()).matched() == m.alteredEvent())
        .count(), mutants.size()));
    md.append("- seed defects (chain parameters as generated; TTLs and times run on the 10 ms grid):\n");
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
