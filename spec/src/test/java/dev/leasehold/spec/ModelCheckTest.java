package dev.leasehold.spec;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.spec.tlc.ModelCheck;
import dev.leasehold.spec.tlc.ModelCheckReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Model-checks every configuration {@code tla/MC*.cfg} with TLC ({@link ModelCheck}),
 * asserts each one's expected result, and writes {@code target/model-check-report.md}.
 */
class ModelCheckTest {
  @Test
  void everyConfigurationHasItsExpectedResult() throws IOException {
    Path tlaDir = Path.of(System.getProperty("spec.tla.dir", "tla")).toAbsolutePath();
    Path target = Path.of(System.getProperty("spec.target.dir", "target")).toAbsolutePath();
    // MC*.cfg run in every build; the deeper Deep*.cfg only when asked for (-Dtlc.configs='Deep.*').
    String configs = System.getProperty("tlc.configs", "MC.*");
    List<ModelCheck.Result> results = ModelCheck.run(tlaDir, configs, Integer.getInteger("tlc.parallel", 1),
        System.getProperty("tlc.workers", "auto"), target.resolve("tlc"));

    String table = ModelCheckReport.table(results);
    System.out.println(table);
    Path report = target.resolve("model-check-report.md");
    Files.writeString(report, ModelCheckReport.report(results, "mvn -pl spec verify"), StandardCharsets.UTF_8);
    System.out.println("Report: " + report);

    List<String> bad = results.stream().filter(r -> !r.ok())
        .map(r -> r.module() + ": expected " + r.expected() + ", got " + r.result()).toList();
    assertTrue(bad.isEmpty(), "model check results differ from the expected ones:\n" + String.join("\n", bad));
  }
}
