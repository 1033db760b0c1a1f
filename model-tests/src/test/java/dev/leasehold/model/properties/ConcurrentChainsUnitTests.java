package dev.leasehold.model.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.model.seed.SeedDefect;
import dev.leasehold.model.seed.SeedLeaseAdapter;
import dev.leasehold.testkit.fault.Interleaving;
import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.ChainFile;
import dev.leasehold.testkit.runner.PropertyRunner;
import dev.leasehold.testkit.runner.Stats;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Concurrent chains: a replay beside a renew or release of one handle, on two threads interleaved
 * at the gateway's points by the step's schedule. The fixed adapter passes them; the pre-fix
 * adapter's races (the seed fixture's RENEW_CAP_AT_REPLY and RELEASE_CHECK_AT_REPLY) fail them, and
 * such a failing chain shrinks, is saved, and replays to the same violation from its file.
 */
class ConcurrentChainsUnitTests {
  private static final WorldConfig FIXED = WorldConfig.simulated(PortFactory.FIXED).withoutWaitLoop()
      .withConcurrentSteps();

  private static WorldConfig seedFixture(SeedDefect... defects) {
    Set<SeedDefect> set = defects.length == 0 ? EnumSet.noneOf(SeedDefect.class) : EnumSet.of(defects[0], defects);
    return WorldConfig.simulated(SeedLeaseAdapter.factory(LeaseWorld.KEYS, set)).withoutWaitLoop()
        .withConcurrentSteps();
  }

  @Test
  void theSchedulesAreTheTwentyInterleavingsOfThreePointsEach() {
    Set<List<Integer>> all = new HashSet<>();
    for (int i = 0; i < Interleaving.SCHEDULES; i++) {
      List<Integer> order = Interleaving.order(i);
      assertEquals(3, order.stream().filter(l -> l == 0).count(), order.toString());
      all.add(order);
    }
    assertEquals(Interleaving.SCHEDULES, all.size());
    assertEquals(List.of(0, 0, 0, 1, 1, 1), Interleaving.order(0));
  }

  @Test
  void theFixedAdapterPassesConcurrentChains() {
    PropertyRunner.Report r = SimulatedLeasePropertiesUnitTests.run("sim-concurrent", FIXED, ModelSettings.seed() + 20,
        ModelSettings.chains(1000));
    assertFalse(r.failure().isPresent(), () -> r.failure().get().rendered());
    assertTrue(r.stats().actions().getOrDefault("renewBesideReplay", 0L) > 100, r.stats().actions().toString());
    assertTrue(r.stats().actions().getOrDefault("releaseBesideReplay", 0L) > 100, r.stats().actions().toString());
  }

  @Test
  void theFixtureWithoutDefectsPassesConcurrentChains() {
    PropertyRunner.Report r = new PropertyRunner<>(new LeaseMachine(seedFixture()))
        .run(PropertyRunner.Config.of(ModelSettings.seed() + 21, 1000, 50));
    assertFalse(r.failure().isPresent(), () -> r.failure().get().rendered());
  }

  @Test
  void theRenewRaceShrinksToAConcurrentStepAndReplaysFromItsFile() {
    failsShrinksAndReplays(SeedDefect.RENEW_CAP_AT_REPLY, "ValidityWithinServerLease", "renewBesideReplay");
  }

  @Test
  void theReleaseRaceShrinksToAConcurrentStepAndReplaysFromItsFile() {
    failsShrinksAndReplays(SeedDefect.RELEASE_CHECK_AT_REPLY, "ActiveHoldsKey", "releaseBesideReplay");
  }

  private static void failsShrinksAndReplays(SeedDefect defect, String property, String action) {
    LeaseMachine machine = new LeaseMachine(seedFixture(defect));
    PropertyRunner<LeaseWorld> runner = new PropertyRunner<>(machine).printTo(s -> {});
    PropertyRunner.Failure f = runner.run(PropertyRunner.Config.of(5, 200, 50)).failure()
        .orElseThrow(() -> new AssertionError(defect + " not found"));
    assertEquals(property, f.violation().property(), f.rendered());
    String last = f.shrunk().get(f.shrunk().size() - 1).action();
    assertEquals(action, last, f.rendered());
    long schedule = f.shrunk().get(f.shrunk().size() - 1).arg(action.equals("renewBesideReplay") ? 3 : 2);
    assertTrue(schedule > 0, "the race needs two threads, not the sequential form:\n" + f.rendered());
    Path file = ModelSettings.target().resolve("model-failures/" + defect + ".chain");
    ChainFile.write(file, f.chainSeed(), runner.renderSteps(f.shrunk()), f.violation().getMessage());
    for (int i = 0; i < 3; i++) {
      PropertyRunner.ChainResult again = new PropertyRunner<>(machine).replay(file);
      assertTrue(again.failed(), "replay " + i + " of " + file + " passed");
      assertEquals(f.violation().getMessage(), again.violation().getMessage());
    }
    // Its sequential form passes: the race needs the interleaving.
    List<dev.leasehold.testkit.runner.Step> sequential = new java.util.ArrayList<>(f.shrunk());
    sequential.set(sequential.size() - 1, sequential.get(sequential.size() - 1)
        .withArg(action.equals("renewBesideReplay") ? 3 : 2, 0));
    assertFalse(new PropertyRunner<>(machine).replay(f.chainSeed(), sequential, new Stats()).failed());
    // The fixed adapter passes the same chain.
    assertFalse(new PropertyRunner<>(new LeaseMachine(FIXED)).replay(file).failed());
  }
}
