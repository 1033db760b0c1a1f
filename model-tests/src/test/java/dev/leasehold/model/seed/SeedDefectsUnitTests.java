package dev.leasehold.model.seed;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.PropertyRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The seed defects as a fixture: the properties must find each one, on each of 20 seeds, within
 * 200 chains, and shrink it to at most 6 actions; the fixture with no defect passes them. The
 * chains of the two race defects include the concurrent steps (a replay beside a renew or release
 * on two threads), which they need; the others keep the sequential chains.
 */
class SeedDefectsUnitTests {
  private static final int SEEDS = 20;
  private static final int CHAINS = 200;
  private static final int MAX_SHRUNK = 6;
  /**
   * The races need one more: a seed whose shrunk chain keeps two refused calls before the grant
   * (removing one moves the other onto the grant) was seen at 7 once the release or renew lane
   * could also reach its send first.
   */
  private static final int MAX_SHRUNK_RACE = 7;
  private static final Path REPORT = Path.of(System.getProperty("model.target.dir", "target"), "seed-defects.md");

  /**
   * The actions the defects were first measured with: the later ones (slow replies, the watchdog,
   * withLease) find them too, but their arguments cost the shrinker most of its replays.
   */
  private static WorldConfig config(Set<SeedDefect> defects) {
    return WorldConfig.simulated(SeedLeaseAdapter.factory(LeaseWorld.KEYS, defects)).withoutWaitLoop()
        .withoutLaterActions();
  }

  /** The sequential defects keep the chains they were measured with; the races get the concurrent steps too. */
  private static WorldConfig configFor(SeedDefect defect) {
    WorldConfig c = config(EnumSet.of(defect));
    return defect.race() ? c.withConcurrentSteps() : c;
  }

  /** Each defect appends its section; a second run must not append to the first run's report. */
  @BeforeAll
  static void freshReport() throws IOException {
    Files.deleteIfExists(REPORT);
  }

  @Test
  void theFixtureWithoutDefectsPassesTheProperties() {
    PropertyRunner.Report r = new PropertyRunner<>(new LeaseMachine(config(EnumSet.noneOf(SeedDefect.class))))
        .run(PropertyRunner.Config.of(99, 500, 50));
    assertFalse(r.failure().isPresent(), () -> r.failure().get().rendered());
  }

  @Test
  void theFixtureWithoutDefectsPassesTheConcurrentSteps() {
    PropertyRunner.Report r = new PropertyRunner<>(new LeaseMachine(config(EnumSet.noneOf(SeedDefect.class))
        .withConcurrentSteps())).run(PropertyRunner.Config.of(99, 500, 50));
    assertFalse(r.failure().isPresent(), () -> r.failure().get().rendered());
  }

  @ParameterizedTest
  @EnumSource(SeedDefect.class)
  void thePropertiesFindEachDefectOnEverySeed(SeedDefect defect) throws IOException {
    LeaseMachine machine = new LeaseMachine(configFor(defect));
    List<Integer> chainsToFind = new ArrayList<>();
    List<String> properties = new ArrayList<>();
    PropertyRunner.Failure example = null;
    for (int seed = 1; seed <= SEEDS; seed++) {
      PropertyRunner<LeaseWorld> runner = new PropertyRunner<>(machine).printTo(s -> {});
      // Only the one defect is planted (the fixture without it passes), so any failure is its own.
      PropertyRunner.Report r = runner.run(PropertyRunner.Config.of(seed * 1_000_003L, CHAINS, 50).anyFailureWhileShrinking());
      int s = seed;
      PropertyRunner.Failure f = r.failure().orElseThrow(
          () -> new AssertionError(defect + " not found on seed " + s + " within " + CHAINS + " chains"));
      assertTrue(f.shrunk().size() <= (defect.race() ? MAX_SHRUNK_RACE : MAX_SHRUNK), () -> defect + " on seed " + s + " shrunk only to "
          + f.shrunk().size() + " actions:\n" + f.rendered());
      chainsToFind.add(f.chainIndex() + 1);
      properties.add(f.violation().property());
      if (example == null || f.shrunk().size() < example.shrunk().size()) {
        example = f;
      }
    }
    List<Integer> sorted = new ArrayList<>(chainsToFind);
    Collections.sort(sorted);
    String summary = String.format("## %s%n%nfound on %d/%d seeds; chains until found: median %d, max %d; "
            + "properties: %s%n%nshortest shrunk chain (%s):%n%n```%n%s```%n%n",
        defect, SEEDS, SEEDS, sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1),
        properties.stream().distinct().toList(), example.violation().getMessage(),
        String.join("\n", new PropertyRunner<>(machine).renderSteps(example.shrunk())) + "\n");
    System.out.println(summary);
    Files.createDirectories(REPORT.toAbsolutePath().getParent());
    Files.writeString(REPORT, summary, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }
}
