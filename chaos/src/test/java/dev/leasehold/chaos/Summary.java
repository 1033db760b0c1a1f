package dev.leasehold.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The table a person reads at the end: one row per scenario run in this JVM, printed and written
 * as Markdown to {@code target/chaos/summary.md} (rewritten after every run, so a failed run still
 * leaves the rows before it). Each run's findings go to {@code target/chaos/<scenario>/findings.txt}.
 *
 * <p>This class is threadsafe.
 */
public final class Summary {
  record Row(String scenario, String config, Checker.Counts counts, String faults, double seconds) {}

  private static final List<Row> ROWS = new ArrayList<>();

  private Summary() {}

  static synchronized void add(ChaosRun.Setup setup, History history, Checker.Counts counts) {
    Map<String, Integer> faults = new TreeMap<>();
    long last = 0;
    for (History.Event e : history.events()) {
      if (e instanceof History.Fault f) {
        faults.merge(f.name(), 1, Integer::sum);
      }
      last = Math.max(last, e.at());
    }
    StringBuilder fs = new StringBuilder();
    faults.forEach((name, n) -> fs.append(fs.length() == 0 ? "" : ", ").append(n).append("x ").append(name));
    String config = setup.fenceMode().name() + (setup.replicaAcks() > 0
        ? " + WAIT " + setup.replicaAcks() + "/" + setup.replicaAckTimeout().toMillis() + "ms" : "");
    ROWS.add(new Row(setup.scenario(), config, counts, fs.length() == 0 ? "none" : fs.toString(), last / 1e9));
    try {
      Path dir = ChaosRun.OUT.resolve(setup.scenario());
      Files.createDirectories(dir);
      Files.write(dir.resolve("findings.txt"), counts.findings(), StandardCharsets.UTF_8);
      Files.writeString(ChaosRun.OUT.resolve("summary.md"), markdown(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static synchronized String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("# Chaos summary\n\n");
    sb.append("Effects in ").append(Postgres.get().description()).append(". Counts come from the recorded history only")
        .append(" (see Checker); 'stale' = a write accepted after a write by a grant granted later.\n\n");
    sb.append("| scenario | fencing | s | ops | grants | faults injected | two ACTIVE | ACTIVE past server lease"
        + " | control stale accepted | fenced stale accepted (claimed FENCED) | fenced stale accepted (claimed EFFICIENCY_ONLY)"
        + " | fenced rejected | duplicate tokens | certainty contradictions | state/outcome disagreements | samples |\n");
    sb.append("|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (Row r : ROWS) {
      Checker.Counts c = r.counts();
      sb.append("| ").append(r.scenario()).append(" | ").append(r.config()).append(" | ")
          .append(String.format("%.1f", r.seconds())).append(" | ").append(c.operations()).append(" | ")
          .append(c.grants()).append(" | ").append(r.faults()).append(" | ")
          .append(c.twoActivePairs()).append(c.twoActivePairs() > 0 ? " (max " + c.twoActiveMaxMs() + " ms)" : "")
          .append(" | ").append(c.activePastLease())
          .append(c.activePastLease() > 0 ? " (max " + c.activePastLeaseMaxMs() + " ms)" : "")
          .append(" | ").append(c.controlStaleAccepted())
          .append(" | ").append(c.fencedStaleAcceptedClaimedFenced())
          .append(" | ").append(c.fencedStaleAcceptedClaimedEfficiency())
          .append(" | ").append(c.fencedRejected())
          .append(" | ").append(c.duplicateTokens())
          .append(" | ").append(c.certaintyContradictions())
          .append(" | ").append(c.stateOutcomeDisagreements())
          .append(" | ").append(c.samples()).append(" |\n");
    }
    return sb.toString();
  }

  /** Prints the table so far; the last test class to finish prints all of it. */
  static synchronized void print() {
    System.out.println();
    System.out.println(markdown());
    System.out.println("(also in " + ChaosRun.OUT.resolve("summary.md").toAbsolutePath() + ", timelines beside it)");
  }

  static synchronized List<Row> rows() {
    return List.copyOf(ROWS);
  }
}
