package dev.leasehold.model.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.ChainFile;
import dev.leasehold.testkit.runner.PropertyRunner;
import dev.leasehold.testkit.runner.Stats;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The properties against the fixed adapter on the simulated gateway: every invariant after every
 * step, and every outcome one the model allows. 1,000 chains of up to 50 actions by default.
 */
class SimulatedLeasePropertiesUnitTests {
  private static final WorldConfig BASE = WorldConfig.simulated(PortFactory.FIXED);

  static PropertyRunner.Report run(String name, WorldConfig config, long seed, int chains) {
    LeaseMachine machine = new LeaseMachine(config);
    PropertyRunner<LeaseWorld> runner = new PropertyRunner<>(machine);
    PropertyRunner.Report report = runner.run(PropertyRunner.Config.of(seed, chains, ModelSettings.maxLength()));
    report.failure().ifPresent(f -> ChainFile.write(ModelSettings.target().resolve("model-failures/" + name + ".chain"),
        f.chainSeed(), runner.renderSteps(f.shrunk()), f.violation().getMessage()));
    return report;
  }

  @Test
  void everyInvariantHoldsWithoutTheWaitLoop() {
    PropertyRunner.Report report = run("sim-no-wait", BASE.withoutWaitLoop(), ModelSettings.seed(), ModelSettings.chains(1000));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
    assertEquals(ModelSettings.chains(1000), report.chainsRun());
  }

  /**
   * With the wait loop: its honest rule (a call whose earlier try was ambiguous never ends in
   * Unavailable or Overloaded) is checked by CertaintyIsHonest.
   */
  @Test
  void everyInvariantHoldsWithTheWaitLoop() {
    PropertyRunner.Report report = run("sim-wait-loop", BASE, ModelSettings.seed(), ModelSettings.chains(1000));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
  }

  @Test
  void clockFloorFencingKeepsFencedEffectsAcrossRestarts() {
    PropertyRunner.Report report = run("sim-restart-clock-floor", BASE.withoutWaitLoop().withRestarts(),
        ModelSettings.seed() + 1, ModelSettings.chains(1000) / 2);
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
  }

  /**
   * Someone else's DEL, SET, PERSIST or HSET on the lease key: the adapter must keep agreeing with
   * the twin and never claim what it does not know (the invariants an outside write breaks by
   * definition are waived, see WorldConfig.withExternalWrites).
   */
  @Test
  void everyInvariantHoldsWithOutsideWrites() {
    PropertyRunner.Report report = run("sim-external-writes", BASE.withExternalWrites(), ModelSettings.seed() + 4,
        ModelSettings.chains(1000));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
  }

  /** The spec's counterexample: with a plain counter a restart re-issues a token a stale holder still has. */
  @Test
  void counterFencingLosesFencedEffectsAcrossARestart() {
    // The spec's actions only: the library's own callers and slow replies make the chain that
    // finds it rarer (with them, a random seed missed it within 2,000 chains).
    PropertyRunner.Report report = run("sim-restart-counter", BASE.withoutWaitLoop().withRestarts()
        .withFenceMode(FenceMode.COUNTER).withoutLaterActions(),
        ModelSettings.seed() + 2, 2_000);
    PropertyRunner.Failure f = report.failure().orElseThrow(() -> new AssertionError("no counterexample found"));
    assertEquals("FencedEffects", f.violation().property(), f.rendered());
    assertTrue(f.shrunk().stream().anyMatch(s -> s.action().equals("restart")), f.rendered());
  }

  /** The spec's other counterexample: a restart without persistence loses the key under an ACTIVE handle. */
  @Test
  void aRestartLosesTheKeyUnderAnActiveHandle() {
    PropertyRunner.Report report = run("sim-restart-validity", BASE.withoutWaitLoop().including("restart"),
        ModelSettings.seed() + 3, 500);
    PropertyRunner.Failure f = report.failure().orElseThrow(() -> new AssertionError("no counterexample found"));
    assertEquals("ActiveHoldsKey", f.violation().property(), f.rendered());
    assertTrue(f.shrunk().size() <= 4, f.rendered());
  }

  /** Every action and outcome variant is reached (restarts are needed for renew:Lost and release:NotOwner; the concurrent steps and the outside writes run in runs of their own, so the first two keep their chains). */
  @Test
  void everyActionAndOutcomeVariantIsExercised() throws IOException {
    List<WorldConfig> configs = List.of(BASE.withoutWaitLoop(), BASE.withoutWaitLoop().withRestarts(),
        BASE.withoutWaitLoop().withConcurrentSteps(), BASE.withoutWaitLoop().withExternalWrites());
    List<String> labels = List.of("without restarts", "with restarts", "with concurrent steps (two threads)",
        "with outside writes");
    Stats all = new Stats();
    Set<String> expected = new LinkedHashSet<>();
    // chains/s is a steady-state figure: the JIT warms up on other chains first (measured cold,
    // in a JVM of its own, the first 600 ran at under 500 chains/s and the last at over 2,000).
    for (WorldConfig c : configs) {
      new PropertyRunner<>(new LeaseMachine(c)).printTo(s -> {})
          .run(PropertyRunner.Config.of(ModelSettings.seed() + 100, 600, ModelSettings.maxLength()));
    }
    StringBuilder md = new StringBuilder("# Model-test statistics (simulated gateway, fixed adapter)\n\n"
        + "Measured after 600 unmeasured chains per configuration (JIT warm-up).\n\n");
    int i = 0;
    for (WorldConfig c : configs) {
      LeaseMachine machine = new LeaseMachine(c);
      PropertyRunner.Report r = new PropertyRunner<>(machine)
          .run(PropertyRunner.Config.of(ModelSettings.seed() + 10 + i, 600, ModelSettings.maxLength()));
      assertFalse(r.failure().isPresent(), () -> r.failure().get().rendered());
      md.append(r.stats().markdown(labels.get(i++), machine.expectedOutcomes()));
      all.add(r.stats());
      expected.addAll(machine.expectedOutcomes());
      machine.actions().forEach(a -> expected.add(a.name()));
    }
    List<String> expectedOutcomes = expected.stream().filter(e -> e.contains(":")).toList();
    List<String> unseenActions = new ArrayList<>(expected.stream().filter(e -> !e.contains(":")).toList());
    unseenActions.removeAll(all.actions().keySet());
    md.append(all.markdown("all runs", expectedOutcomes));
    System.out.println(md);
    Files.createDirectories(ModelSettings.target());
    Files.writeString(ModelSettings.target().resolve("model-stats.md"), md);
    assertEquals(List.of(), unseenActions, "actions never taken");
    assertEquals(List.of(), all.unseen(expectedOutcomes), "outcome variants never seen");
  }
}
