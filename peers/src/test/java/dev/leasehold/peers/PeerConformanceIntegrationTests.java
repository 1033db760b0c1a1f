package dev.leasehold.peers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.blackbox.BlackBoxConformance;
import dev.leasehold.testkit.blackbox.BlackBoxProperty;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.blackbox.Verdict;
import dev.leasehold.testkit.blackbox.Verdict.Finding;
import dev.leasehold.testkit.blackbox.VerdictTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Runs the black-box lane on every peer and writes {@code target/peer-conformance.md}, the table
 * docs/peers.md shows. It asserts what must hold whatever the peers do: Leasehold and its adapters break nothing,
 * every property a library passes was tested (its precondition met), and the faults reached calls.
 * What the peers break is asserted by {@link PeerFindingsIntegrationTests}, from chain files.
 */
class PeerConformanceIntegrationTests {
  static final String COMMAND = "mvn -B -pl peers -am verify -Dtest=PeerConformanceIntegrationTests"
      + " -Dsurefire.failIfNoSpecifiedTests=false";
  static final int CHAINS = 24;
  static final int MAX_LENGTH = 16;
  static final long SEED = 20261206L;

  /** The library's findings so far: chains/&lt;library&gt;/*.chain, replayed before the random chains. */
  static List<Path> findings(LockLibrary library) throws IOException {
    Path dir = Path.of("src", "test", "resources", "chains", library.name());
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".chain")).sorted().toList();
    }
  }

  @Test
  void everyPeerIsJudged_andTheTableIsWritten() throws IOException {
    Path target = Path.of("target");
    long start = System.nanoTime();
    List<Verdict> verdicts = new ArrayList<>();
    for (LockLibrary library : Peers.all()) {
      verdicts.add(BlackBoxConformance.of(library).chains(CHAINS).maxLength(MAX_LENGTH).seed(SEED).maxShrinkRuns(12)
          .regressions(findings(library), PeerFindingsIntegrationTests.RACE_TRIES)
          .reportDir(target.resolve("peer-chains")).run());
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    String report = "# Peer conformance\n\n" + "Run: `" + COMMAND + "`, " + Instant.now() + ", " + took.toSeconds()
        + " s; " + CHAINS + " chains of at most " + MAX_LENGTH + " steps per library, seed " + SEED + ".\n\n"
        + VerdictTable.markdown(verdicts);
    Files.writeString(target.resolve("peer-conformance.md"), report);
    System.out.println(report);

    for (Verdict v : verdicts) {
      for (BlackBoxProperty p : BlackBoxProperty.values()) {
        Finding f = v.finding(p);
        assertTrue(!(f instanceof Finding.Held held) || held.reached() > 0,
            v.library() + ": " + p + " passed without being tested once");
      }
      assertTrue(v.outcomes().keySet().stream().anyMatch(o -> o.endsWith("-after-lost-reply")),
          v.library() + ": no call lost a reply");
      assertTrue(v.outcomes().getOrDefault("pause:paused-holding", 0L) > 0, v.library() + ": no pause met a hold");
    }
    for (String name : Peers.leaseholds()) {
      Verdict leasehold = verdicts.stream().filter(v -> v.library().equals(name)).findFirst().orElseThrow();
      assertTrue(leasehold.conforms(), () -> name + " broke a property:\n" + VerdictTable.markdown(List.of(leasehold)));
    }
  }
}
