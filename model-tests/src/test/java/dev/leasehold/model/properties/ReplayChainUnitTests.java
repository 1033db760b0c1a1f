package dev.leasehold.model.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.PropertyRunner;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays saved chains. Every chain under {@code src/test/resources/chains} once found a bug and
 * is replayed on every build. A chain a failing run saved is replayed on request:
 * {@code mvn -o -pl model-tests verify -Dtest=ReplayChainUnitTests
 * -Dmodel.replay=target/model-failures/sim-wait-loop.chain} (add {@code -Dmodel.replayRestarts=true}
 * for a chain from a restart run, {@code -Dmodel.replayExternalWrites=true} for one with outside writes).
 */
class ReplayChainUnitTests {
  static Stream<Path> regressionChains() throws IOException, URISyntaxException {
    Path dir = Path.of(ReplayChainUnitTests.class.getResource("/chains").toURI());
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> chains = files.filter(p -> p.toString().endsWith(".chain")).sorted().toList();
      assertFalse(chains.isEmpty(), "the regression corpus is empty");
      return chains.stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("regressionChains")
  void aChainThatOnceFoundABugPasses(Path chain) throws IOException {
    // A chain with a restart replays with restarts on (and the invariants a restart breaks waived).
    String text = Files.readString(chain);
    PropertyRunner.ChainResult r = replay(chain, text.contains("\nrestart("), text.contains("\nexternal"));
    assertFalse(r.failed(), () -> r.violation().getMessage() + " after " + r.executed());
    assertEquals(ChainSize.of(chain), r.executed().size(), "every step of the chain ran");
  }

  @Test
  @EnabledIfSystemProperty(named = "model.replay", matches = ".+")
  void theSavedChainNoLongerFails() {
    PropertyRunner.ChainResult r = replay(ModelSettings.replayFile(), Boolean.getBoolean("model.replayRestarts"),
        Boolean.getBoolean("model.replayExternalWrites"));
    assertFalse(r.failed(), () -> r.violation().getMessage() + " after " + r.executed());
  }

  private static PropertyRunner.ChainResult replay(Path chain, boolean restarts, boolean externalWrites) {
    WorldConfig config = WorldConfig.simulated(PortFactory.FIXED).withConcurrentSteps();
    if (restarts) {
      config = config.withRestarts();
    }
    if (externalWrites) {
      config = config.withExternalWrites();
    }
    return new PropertyRunner<>(new LeaseMachine(config)).replay(chain);
  }

  /** The number of steps a chain file lists. */
  private static final class ChainSize {
    static int of(Path chain) {
      try (Stream<String> lines = Files.lines(chain)) {
        return (int) lines.map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#") && !l.startsWith("seed=")).count();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
