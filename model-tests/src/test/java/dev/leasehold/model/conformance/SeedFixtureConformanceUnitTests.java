package dev.leasehold.model.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.model.seed.SeedDefect;
import dev.leasehold.model.seed.SeedLeaseAdapter;
import dev.leasehold.testkit.LeaseConformance;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.PortFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The seed-defect fixture as a third-party port seen only through the conformance entry point:
 * the kit rejects each planted defect (the fixture has no wait loop, so chains ask for one try),
 * naming the property, the seed and a chain file; without a defect the same port passes.
 */
class SeedFixtureConformanceUnitTests {
  private static final Path REPORTS = Path.of(System.getProperty("model.target.dir", "target"), "conformance");

  private static LeaseConformance kitFor(Set<SeedDefect> defects, String name) {
    PortFactory thirdParty = SeedLeaseAdapter.factory(LeaseWorld.KEYS, defects);
    return LeaseConformance.of(thirdParty).name(name).waitLoop(false).chains(200, 50).reportDir(REPORTS);
  }

  /**
   * The property each defect is caught by: the replayed budget outlives the key (or, when a slow
   * reply reaches it first, the handle's server expiry disagrees with the reply's PTTL); the rest
   * disagree with the model.
   */
  private static Set<String> caughtBy(SeedDefect d) {
    return d == SeedDefect.REPLAY_BUDGET_FROM_FULL_TTL
        ? Set.of("ValidityWithinServerLease", "ModelAgreement")
        : Set.of("ModelAgreement", "StateOutcomeAgreement");
  }

  @Test
  void theFixtureWithoutDefectsConforms() {
    LeaseConformance.Result r = kitFor(EnumSet.noneOf(SeedDefect.class), "seed-none").seed(7).assertConforms();
    assertEquals(200, r.chainsRun());
  }

  @ParameterizedTest
  @EnumSource(value = SeedDefect.class, mode = EnumSource.Mode.EXCLUDE,
      names = {"RENEW_CAP_AT_REPLY", "RELEASE_CHECK_AT_REPLY"})  // races: SeedDefectsUnitTests, ConcurrentChainsUnitTests
  void theKitRejectsEachDefectNamingThePropertyAndTheSeed(SeedDefect defect) throws Exception {
    String name = "seed-" + defect.name().toLowerCase();
    AssertionError e = assertThrows(AssertionError.class, () -> kitFor(EnumSet.of(defect), name).seed(5).assertConforms());
    String property = e.getMessage().replaceFirst("(?s)^[^:]+: property (\\w+) violated.*", "$1");
    assertTrue(caughtBy(defect).contains(property), defect + " caught by " + property + ":\n" + e.getMessage());
    assertTrue(e.getMessage().contains("-D" + LeaseConformance.SEED_PROPERTY + "=5"), e.getMessage());
    assertTrue(Files.readString(REPORTS.resolve(name + ".chain")).contains(property), "chain file names the property");
  }
}
