package dev.leasehold.model.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.runner.ChainFile;
import dev.leasehold.testkit.runner.PropertyRunner;
import org.junit.jupiter.api.Test;

/**
 * The adapter's settings and TTLs against their documented ranges ({@link SettingsMachine}):
 * every out-of-range value is an IllegalArgumentException naming it before any I/O, every value
 * in range builds an adapter that acquires, replays, is contended (waiting, with pauses in their
 * documented bounds) and renews as documented, also for an interrupted caller.
 */
class SettingsPropertiesUnitTests {
  @Test
  void everySettingIsJudgedByItsDocumentedRange() {
    PropertyRunner<SettingsWorld> runner = new PropertyRunner<>(new SettingsMachine());
    PropertyRunner.Report report = runner.run(PropertyRunner.Config.of(ModelSettings.seed(), ModelSettings.chains(1000) / 2,
        ModelSettings.maxLength()));
    report.failure().ifPresent(f -> ChainFile.write(ModelSettings.target().resolve("model-failures/settings.chain"),
        f.chainSeed(), runner.renderSteps(f.shrunk()), f.violation().getMessage()));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
    // Every setting was rejected at least once, and the chains did more than configure.
    for (String name : Settings.NAMES) {
      assertTrue(report.stats().outcomes().containsKey("configure:rejected:" + name),
          () -> name + " never rejected: " + report.stats().outcomes().keySet());
    }
    for (String outcome : new String[] {"tryAcquire:FENCED", "tryAcquire:EFFICIENCY_ONLY", "tryAcquire:rejected",
        "renew:renewed", "renew:rejected", "replay:replayed", "contend:noExpiry", "contend:pttl", "misuse:rejected",
        "interrupted:renew0", "interrupted:wait1", "interrupted:wait2", "interrupted:wait3", "interrupted:release4",
        "release:Released", "release:close"}) {
      assertTrue(report.stats().outcomes().containsKey(outcome), () -> outcome + " never seen: "
          + report.stats().outcomes().keySet());
    }
    assertEquals(ModelSettings.chains(1000) / 2, report.chainsRun());
  }
}
