package dev.leasehold.spec;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.leasehold.spec.tlc.ModelCheck;
import dev.leasehold.spec.tlc.ModelCheckReport;
import dev.leasehold.spec.tlc.PropertyBreakers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Model-checks every configuration {@code tla/MC*.cfg} with TLC ({@link ModelCheck}), asserts each
 * one's expected result, shows that each property a passing configuration lists can fail there
 * ({@link PropertyBreakers}), and writes {@code target/model-check-report.md}.
 */
class ModelCheckTest {
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

    String table = ModelCheckReport.table(results);
    System.out.println(table);
    Path report = target.resolve("model-check-report.md");
    Files.writeString(report, ModelCheckReport.report(results, "mvn -pl spec verify") + ModelCheckReport.breakers(checks),
        StandardCharsets.UTF_8);
    System.out.println("Report: " + report);

    List<String> bad = results.stream().filter(r -> !r.ok())
        .map(r -> r.module() + ": expected " + r.expected() + ", got " + r.result()).toList();
    assertTrue(bad.isEmpty(), "model check results differ from the expected ones:\n" + String.join("\n", bad));
    List<String> unbroken = checks.stream().filter(c -> !c.ok())
        .map(c -> c.config() + " lists " + c.property() + (c.breaker().isEmpty() ? ", which no BREAK line of Breakers.tla breaks"
            : ", but " + String.join(", ", c.breaker().get().overrides()) + " gave " + c.result().result())).toList();
    assertTrue(unbroken.isEmpty(), "properties not shown to fail where they are checked:\n" + String.join("\n", unbroken));
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
