package dev.leasehold.peers;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.blackbox.BlackBoxConformance;
import dev.leasehold.testkit.blackbox.BlackBoxProperty;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.blackbox.Verdict;
import dev.leasehold.testkit.blackbox.Verdict.Finding;
import dev.leasehold.testkit.blackbox.VerdictTable;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
  /** The lane's default budget, written out for the report. */
  static final int CHAINS = 48;
  static final int MAX_LENGTH = 16;
  /** Libraries judged side by side, each on its own server (a chain mostly waits in real time). */
  static final int AT_ONCE = 3;
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
  void everyPeerIsJudged_andTheTableIsWritten() throws Exception {
    Path target = Path.of("target");
    long start = System.nanoTime();
    // Load can only hide a violation (every judgement is on evidence), never show one that is not there.
    ExecutorService pool = Executors.newFixedThreadPool(AT_ONCE);
    List<Verdict> verdicts = new ArrayList<>();
    try {
      List<Future<Verdict>> runs = new ArrayList<>();
      for (LockLibrary library : Peers.all()) {
        List<Path> chainFiles = findings(library);
        runs.add(pool.submit(() -> BlackBoxConformance.of(library).chains(CHAINS).maxLength(MAX_LENGTH).seed(SEED)
            .maxShrinkRuns(12).regressions(chainFiles, PeerFindingsIntegrationTests.RACE_TRIES)
            .reportDir(target.resolve("peer-chains")).printTo(s -> {}).run()));
      }
      for (Future<Verdict> run : runs) {
        verdicts.add(run.get());
      }
    } finally {
      pool.shutdownNow();
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
      assertTrue(v.outcomes().keySet().stream().anyMatch(o -> o.startsWith("delayedRelease:") && o.endsWith("-after-delayed-reply")),
          v.library() + ": no release had its replies delayed");
    }
    // ShedLock's unsafe updates are found by the random chains, not only replayed from their files.
    Verdict shedlock = verdicts.stream().filter(v -> v.library().equals("shedlock")).findFirst().orElseThrow();
    Finding.Violated taken = assertInstanceOf(Finding.Violated.class, shedlock.finding(BlackBoxProperty.MutualExclusion));
    assertTrue(taken.chainFile().orElseThrow().startsWith(target.resolve("peer-chains")),
        () -> "shedlock's MutualExclusion came only from its chain file: " + taken.message());
    for (String name : Peers.leaseholds()) {
      Verdict leasehold = verdicts.stream().filter(v -> v.library().equals(name)).findFirst().orElseThrow();
      assertTrue(leasehold.conforms(), () -> name + " broke a property:\n" + VerdictTable.markdown(List.of(leasehold)));
    }
  }
}
