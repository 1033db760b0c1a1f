package dev.leasehold.spec;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.leasehold.spec.tlc.ModelCheck;
import dev.leasehold.spec.tlc.ModelCheckReport;
import dev.leasehold.spec.tlc.PropertyBreakers;
import dev.leasehold.spec.tlc.Tlc;
import dev.leasehold.spec.tlc.Unreduced;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Model-checks every configuration {@code tla/MC*.cfg} with TLC ({@link ModelCheck}), asserts each
 * one's expected result, shows that each property a passing configuration lists can fail there
 * ({@link PropertyBreakers}), shows that every expected failure is one without the view and the
 * symmetry as well ({@link Unreduced}), and writes {@code target/model-check-report.md}.
 */
class ModelCheckTest {
  /**
   * The highest time bound of the expected failures' checks without reductions (each is bounded at
   * the time its reduced counterexample reaches, {@link Unreduced#ticks}): a key granted at 0 with
   * the longest TTL (4) expires within it.
   */
  private static final int TICKS = Integer.getInteger("tlc.unreduced.ticks", 5);
  /** The passing configurations' bound: they are explored to the end, without the symmetry's factor of up to 12. */
  private static final int PASSING_TICKS = Integer.getInteger("tlc.unreduced.passing.ticks", 1);

  @Test
  void everyConfigurationHasItsExpectedResult() throws IOException {
    Path tlaDir = Path.of(System.getProperty("spec.tla.dir", "tla")).toAbsolutePath();
    Path target = Path.of(System.getProperty("spec.target.dir", "target")).toAbsolutePath();
    // MC*.cfg run in every build; a deeper Deep*.cfg only when asked for (-Dtlc.configs=DeepLeaseThreads);
    // NONE skips the check (CI's second command, after its first ran it on the same checkout).
    String configs = System.getProperty("tlc.configs", "MC.*");
    assumeFalse(configs.equals("NONE"), "-Dtlc.configs=NONE: the exhaustive model check is skipped");
    int parallel = Integer.getInteger("tlc.parallel", 2);
    List<ModelCheck.Result> results = ModelCheck.run(tlaDir, configs, parallel, System.getProperty("tlc.workers", "auto"),
        target.resolve("tlc"));

    // Every property a passing configuration lists must be shown to fail there (Breakers.tla).
    List<String> passing = results.stream().filter(r -> r.expectedToPass() && r.ok()).map(ModelCheck.Result::module).toList();
    List<PropertyBreakers.Check> checks = PropertyBreakers.run(tlaDir, passing, parallel, target.resolve("breakers"),
        target.resolve("tlc"));

    // Every expected failure must fail on the same property without the view and the symmetry, time bounded.
    List<ModelCheck.Result> mustFail = results.stream().filter(r -> !r.expectedToPass()).toList();
    List<Unreduced.Pair> unreduced = Unreduced.failures(tlaDir, mustFail, checks, TICKS, parallel, target.resolve("breakers"),
        target.resolve("tlc"));

    String table = ModelCheckReport.table(results);
    System.out.println(table);
    Path report = target.resolve("model-check-report.md");
    Files.writeString(report, ModelCheckReport.report(results, "mvn -pl spec verify") + ModelCheckReport.breakers(checks)
        + ModelCheckReport.unreduced(unreduced, "Each expected failure is bounded at the time its counterexample with the "
            + "reductions reaches (at most " + TICKS + "): that behaviour is within the bound, and so is every state the "
            + "reductions could have merged away before it."), StandardCharsets.UTF_8);
    System.out.println("Report: " + report);

    List<String> bad = results.stream().filter(r -> !r.ok())
        .map(r -> r.module() + ": expected " + r.expected() + ", got " + r.result()).toList();
    assertTrue(bad.isEmpty(), "model check results differ from the expected ones:\n" + String.join("\n", bad));
    List<String> unbroken = checks.stream().filter(c -> !c.ok())
        .map(c -> c.config() + " lists " + c.property() + (c.breaker().isEmpty() ? ", which no BREAK line of Breakers.tla breaks"
            : ", but " + String.join(", ", c.breaker().get().overrides()) + " gave " + c.result().result())).toList();
    assertTrue(unbroken.isEmpty(), "properties not shown to fail where they are checked:\n" + String.join("\n", unbroken));
    List<String> hidden = unreduced.stream().filter(p -> !p.unreduced().ok())
        .map(p -> p.config() + ": violates " + p.expected() + " with the view and symmetry, but without them (time <= "
            + p.ticks() + ") gave " + p.unreduced().result()).toList();
    assertTrue(hidden.isEmpty(), "expected failures that differ without the reductions:\n" + String.join("\n", hidden));
  }

  @Test
  void thePassingConfigurationsPassWithoutTheirReductions() throws IOException {
    // Each passing configuration once more without view and symmetry, time bounded: exhaustive, so
    // minutes each; -Dtlc.unreduced selects them (a regex; NONE: skipped, as CI's first command does:
    // its second runs them).
    Path tlaDir = Path.of(System.getProperty("spec.tla.dir", "tla")).toAbsolutePath();
    Path target = Path.of(System.getProperty("spec.target.dir", "target")).toAbsolutePath();
    String configs = System.getProperty("tlc.unreduced", "MC.*");
    assumeFalse(configs.equals("NONE"), "-Dtlc.unreduced=NONE: the passing configurations' unreduced checks are skipped");
    Path work = target.resolve("unreduced");
    ModelCheck.copyModules(tlaDir, work);
    List<Unreduced.Pair> pairs = new ArrayList<>();
    for (Path cfg : ModelCheck.configurations(tlaDir, configs)) {
      if (ModelCheck.expectation(cfg).equals("PASS") && Unreduced.reduces(cfg)) {
        String module = cfg.getFileName().toString().replace(".cfg", "");
        ModelCheck.Result r = Unreduced.check(cfg, "PASS", PASSING_TICKS, Tlc.Length.LONG, System.getProperty("tlc.workers", "auto"),
            work, target.resolve("tlc"));
        pairs.add(new Unreduced.Pair(module, "PASS", Optional.empty(), PASSING_TICKS, r));
      }
    }
    String report = ModelCheckReport.unreduced(pairs, "Each passing configuration is explored to the end within `now <= "
        + PASSING_TICKS + "`.");
    System.out.println(report);
    Files.writeString(target.resolve("unreduced-report.md"), report, StandardCharsets.UTF_8);
    List<String> bad = pairs.stream().filter(p -> !p.unreduced().ok()).map(p -> p.config() + ": " + p.unreduced().result()).toList();
    assertTrue(bad.isEmpty(), "a passing configuration fails without its reductions:\n" + String.join("\n", bad));
  }

  @Test
  void theDeeperConfigurationsHoldOnSampledBehaviours() throws IOException {
    // Deep*.cfg are too large to check exhaustively in every build: a seeded sample of behaviours
    // in TLC's simulation mode (-Dtlc.simulate selects the configurations, a regex; none: skipped).
    Path tlaDir = Path.of(System.getProperty("spec.tla.dir", "tla")).toAbsolutePath();
    Path target = Path.of(System.getProperty("spec.target.dir", "target")).toAbsolutePath();
    ModelCheck.Sampling sampling = new ModelCheck.Sampling(Long.getLong("tlc.sim.behaviours", 30_000),
        Integer.getInteger("tlc.sim.depth", 100), Long.getLong("tlc.sim.seed", 20261205));
    String configs = System.getProperty("tlc.simulate", "Deep.*");
    assumeFalse(configs.equals("NONE"), "-Dtlc.simulate=NONE: the simulation lane is skipped");
    List<ModelCheck.Result> results = ModelCheck.simulate(tlaDir, configs, sampling,
        System.getProperty("tlc.workers", "auto"), target.resolve("tlc"));

    String report = ModelCheckReport.simulation(results, sampling, "mvn -pl spec verify");
    System.out.println(report);
    Files.writeString(target.resolve("simulation-report.md"), report, StandardCharsets.UTF_8);
    List<String> bad = results.stream().filter(r -> !r.ok()).map(r -> r.module() + ": " + r.result()).toList();
    assertTrue(bad.isEmpty(), "a sampled behaviour broke the spec:\n" + String.join("\n", bad));
  }
}
