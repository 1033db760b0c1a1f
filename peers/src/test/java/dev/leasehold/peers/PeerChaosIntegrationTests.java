package dev.leasehold.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.peers.PeerChaos.Counts;
import dev.leasehold.peers.PeerChaos.Scenario;
import dev.leasehold.testkit.blackbox.LockLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * Runs the chaos workload ({@link PeerChaos}) on every peer in every scenario and writes
 * {@code target/peer-chaos.md}, the chaos table docs/peers.md shows. It asserts that every run
 * granted, wrote and met its faults, and what Leasehold promises: a paused holder's stale writes
 * reach the unfenced control (so the count is not blind), the fenced store takes none once the
 * next holder has written, and no second holder while the server kept its keys. What the peers do is reported, not asserted.
 */
class PeerChaosIntegrationTests {
  static final String COMMAND = "mvn -B -pl peers -am verify -Dtest=PeerChaosIntegrationTests"
      + " -Dsurefire.failIfNoSpecifiedTests=false";

  @Test
  void everyPeerRunsEveryScenario_andTheTableIsWritten() throws Exception {
    long start = System.nanoTime();
    // Runs side by side, each on its own server and proxies: every count is taken on the instants
    // recorded around each call, so load can hide a stale write or a second holder, never make one.
    ExecutorService pool = Executors.newFixedThreadPool(PeerConformanceIntegrationTests.AT_ONCE);
    List<Counts> all = new ArrayList<>();
    try {
      List<Future<Counts>> runs = new ArrayList<>();
      for (Scenario scenario : Scenario.values()) {
        for (LockLibrary library : Peers.all()) {
          runs.add(pool.submit(() -> PeerChaos.run(library, scenario)));
        }
      }
      for (Future<Counts> run : runs) {
        all.add(run.get());
      }
    } finally {
      pool.shutdownNow();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    String report = markdown(all, took);
    Files.writeString(Path.of("target", "peer-chaos.md"), report);
    System.out.println(report);

    for (Counts c : all) {
      String run = c.library() + " in " + c.scenario().label() + ": ";
      assertTrue(c.grants() > 0 && c.effects() > 0, run + "no grant or no effect: " + c);
      assertTrue(c.faults() > 0, run + "no fault happened: " + c);
    }
    Counts paused = find(all, "leasehold", Scenario.CLIENT_PAUSE);
    assertTrue(paused.staleUnfenced() > 0, "the control took no stale write of a paused holder: the count is blind");
    assertTrue(paused.staleUnfenced() > paused.staleBeforeNext(),
        "no stale write came after the next holder wrote: the fence had nothing to refuse: " + paused);
    assertEquals(0, paused.fencedStale(), "the fenced store took a stale write of Leasehold after its next holder"
        + " wrote: " + paused);
    for (String leasehold : Peers.leaseholds()) {
      for (Scenario s : List.of(Scenario.CLIENT_PAUSE, Scenario.PROXY_FAULTS)) {
        Counts c = find(all, leasehold, s);
        assertEquals(0, c.secondHolders(), leasehold + " granted a second holder in " + s.label() + ": " + c);
        assertEquals(0, c.fencedStale(), "the fenced store took a stale write of " + leasehold
            + " after its next holder wrote, in " + s.label() + ": " + c);
      }
    }
  }

  private static Counts find(List<Counts> all, String library, Scenario scenario) {
    return all.stream().filter(c -> c.library().equals(library) && c.scenario() == scenario).findFirst().orElseThrow();
  }

  private static final List<String> MEASURES = List.of("grants", "effects written", "faults made",
      "stale writes (the unfenced store took them all)", "of them before the next holder wrote",
      "stale writes the fenced store took after the next holder wrote",
      "current holder's writes the fenced store refused", "second holders");

  private static final List<ToIntFunction<Counts>> VALUES = List.of(Counts::grants, Counts::effects, Counts::faults,
      Counts::staleUnfenced, Counts::staleBeforeNext, Counts::fencedStale, Counts::holderRefused,
      Counts::secondHolders);

  static String markdown(List<Counts> all, Duration took) throws IOException {
    List<String> libraries = all.stream().map(Counts::library).distinct().toList();
    StringBuilder b = new StringBuilder("# Peer chaos\n\nRun: `").append(COMMAND).append("`, ").append(Instant.now())
        .append(", ").append(took.toSeconds()).append(" s; ").append(PeerChaos.WORKERS).append(" workers for ")
        .append(PeerChaos.RUN.toSeconds()).append(" s per library and scenario, TTL ").append(PeerChaos.TTL.toMillis())
        .append(" ms. \"-\": the library has no token, so there is no fenced store to write.\n");
    for (Scenario s : Scenario.values()) {
      b.append("\n### ").append(s.label()).append("\n\n| |");
      libraries.forEach(l -> b.append(' ').append(l).append(" |"));
      b.append("\n|---|").append("---:|".repeat(libraries.size())).append('\n');
      for (int m = 0; m < MEASURES.size(); m++) {
        b.append("| ").append(MEASURES.get(m)).append(" |");
        for (String l : libraries) {
          int v = VALUES.get(m).applyAsInt(find(all, l, s));
          b.append(' ').append(v < 0 ? "-" : Integer.toString(v)).append(" |");
        }
        b.append('\n');
      }
    }
    return b.toString();
  }
}
