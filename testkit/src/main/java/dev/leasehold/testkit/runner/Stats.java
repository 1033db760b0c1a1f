package dev.leasehold.testkit.runner;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run did: actions taken, outcome variants seen, chain lengths, steps skipped because their
 * precondition failed. Rendered as Markdown for the test output and {@code target/model-stats.md}.
 *
 * <p>This class is not threadsafe; one runner fills it.
 */
public final class Stats {
  private final Map<String, Long> actions = new TreeMap<>();
  private final Map<String, Long> outcomes = new TreeMap<>();
  private final List<Integer> lengths = new ArrayList<>();
  private long skipped;
  private long chains;
  private long nanos;

  void action(String name) {
    actions.merge(name, 1L, Long::sum);
  }

  void outcome(String label) {
    outcomes.merge(label, 1L, Long::sum);
  }

  void skipped() {
    skipped++;
  }

  void chain(int length) {
    chains++;
    lengths.add(length);
  }

  void elapsed(long nanos) {
    this.nanos += nanos;
  }

  /** Adds another run's figures (several properties into one report). */
  public void add(Stats other) {
    other.actions.forEach((k, v) -> actions.merge(k, v, Long::sum));
    other.outcomes.forEach((k, v) -> outcomes.merge(k, v, Long::sum));
    lengths.addAll(other.lengths);
    skipped += other.skipped;
    chains += other.chains;
    nanos += other.nanos;
  }

  public Map<String, Long> actions() {
    return Collections.unmodifiableMap(actions);
  }

  public Map<String, Long> outcomes() {
    return Collections.unmodifiableMap(outcomes);
  }

  public long chains() {
    return chains;
  }

  public long steps() {
    return actions.values().stream().mapToLong(Long::longValue).sum();
  }

  public double chainsPerSecond() {
    return nanos == 0 ? 0 : chains / (nanos / 1e9);
  }

  /** The expected outcome labels never seen. */
  public List<String> unseen(List<String> expected) {
    return expected.stream().filter(e -> !outcomes.containsKey(e)).toList();
  }

  public String markdown(String title, List<String> expectedOutcomes) {
    StringBuilder b = new StringBuilder("## ").append(title).append("\n\n");
    b.append(String.format("chains %d, steps %d, skipped (precondition false) %d, %.1f s, %.0f chains/s%n%n",
        chains, steps(), skipped, nanos / 1e9, chainsPerSecond()));
    List<Integer> sorted = new ArrayList<>(lengths);
    Collections.sort(sorted);
    if (!sorted.isEmpty()) {
      b.append(String.format("chain length: min %d, median %d, max %d%n%n", sorted.get(0),
          sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1)));
      Map<Integer, Integer> buckets = new TreeMap<>();
      sorted.forEach(l -> buckets.merge(l / 10 * 10, 1, Integer::sum));
      b.append("| length | chains |\n| --- | --- |\n");
      buckets.forEach((k, v) -> b.append("| ").append(k).append('-').append(k + 9).append(" | ").append(v).append(" |\n"));
      b.append('\n');
    }
    b.append("| action | taken |\n| --- | --- |\n");
    actions.forEach((k, v) -> b.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    b.append("\n| outcome | seen |\n| --- | --- |\n");
    TreeMap<String, Long> all = new TreeMap<>(outcomes);
    expectedOutcomes.forEach(e -> all.putIfAbsent(e, 0L));
    all.forEach((k, v) -> b.append("| ").append(k).append(" | ").append(v == 0 ? "**never**" : v).append(" |\n"));
    return b.append('\n').toString();
  }
}
