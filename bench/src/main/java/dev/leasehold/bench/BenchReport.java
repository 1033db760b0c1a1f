package dev.leasehold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The Markdown report of one {@link BenchMain} run: when, on what, the settings, the table and the
 * ratios. Missing or failed benchmarks are marked, never left out.
 *
 * <p>This class is immutable (static functions only).
 */
final class BenchReport {
  private BenchReport() {}

  static String markdown(OffsetDateTime started, Duration took, String loadBefore, String loadAfter,
      String redisVersion, int forks, int warmups, int iterations, TimeValue time, int threads, List<BenchMain.Row> rows) {
    StringBuilder md = new StringBuilder();
    md.append("# Leasehold benchmark report (short mode)\n\n");
    md.append("- date: ").append(BenchMain.date(started)).append(" (run took ").append(took.toSeconds()).append(" s)\n");
    md.append("- machine: nproc ").append(Runtime.getRuntime().availableProcessors())
        .append(", memory ").append(memory()).append(", cpu ").append(cpu()).append('\n');
    md.append("- load average (1/5/15 min) before: ").append(loadBefore).append(", after: ").append(loadAfter).append('\n');
    md.append("- software: ").append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
        .append(", ").append(System.getProperty("java.vm.name")).append(' ').append(System.getProperty("java.version"))
        .append(", redis-server ").append(redisVersion).append(" on loopback (one server for the whole run)\n");
    md.append("- JMH: SampleTime, ").append(forks).append(" fork(s), ").append(warmups).append(" warmup x ").append(time)
        .append(", ").append(iterations).append(" measurement x ").append(time)
        .append("; throughput = threads / mean latency (closed loop)\n\n");

    md.append("| benchmark | threads | throughput (ops/s) | mean (us) | p50 (us) | p99 (us) | samples |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (BenchMain.Row r : rows) {
      if (!r.ok()) {
        md.append("| ").append(r.benchmark()).append(" | ").append(r.threads()).append(" | FAILED | | | | |\n");
        continue;
      }
      // A handoff is a latency between two parties, not a rate one caller can sustain.
      String throughput = r.benchmark().startsWith("HandoffBenchmark.") ? "-"
          : String.format(Locale.ROOT, "%,.0f", r.throughput());
      md.append(String.format(Locale.ROOT, "| %s | %d | %s | %.1f%s | %.1f | %.1f | %d |%n", r.benchmark(), r.threads(),
          throughput, r.stats().getMean(),
          Double.isFinite(r.meanError()) ? String.format(Locale.ROOT, " ± %.1f", r.meanError()) : "",
          r.stats().getPercentile(50), r.stats().getPercentile(99), r.stats().getN()));
    }

    md.append("\n## Ratios (same run)\n\n");
    md.append("Throughput ratios above 1 and latency ratios below 1 favour the adapter.\n\n");
    md.append("| ratio | 1 thread | ").append(threads).append(" threads | target |\n");
    md.append("| --- | ---: | ---: | --- |\n");
    ratio(md, rows, threads, "acquire+release throughput adapter/raw", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.raw", BenchMain.Row::throughput, 0.95, true);
    ratio(md, rows, threads, "acquire+release throughput adapter/Redisson", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.redisson", BenchMain.Row::throughput, 2.0, true);
    ratio(md, rows, threads, "acquire+release p50 latency adapter/raw", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.raw", r -> r.stats().getPercentile(50), Double.NaN, false);
    ratio(md, rows, threads, "acquire+release p99 latency adapter/raw", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.raw", r -> r.stats().getPercentile(99), Double.NaN, false);
    ratio(md, rows, threads, "acquire+release p50 latency adapter/Redisson", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.redisson", r -> r.stats().getPercentile(50), Double.NaN, false);
    ratio(md, rows, threads, "acquire+release p99 latency adapter/Redisson", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.redisson", r -> r.stats().getPercentile(99), Double.NaN, false);
    ratio(md, rows, threads, "handoff p50 latency adapter/Redisson", "HandoffBenchmark.adapter",
        "HandoffBenchmark.redisson", r -> r.stats().getPercentile(50), Double.NaN, false);
    ratio(md, rows, threads, "handoff p99 latency adapter/Redisson", "HandoffBenchmark.adapter",
        "HandoffBenchmark.redisson", r -> r.stats().getPercentile(99), Double.NaN, false);
    md.append("\nTargets are measured, not asserted, and apply at 8 threads. Noise between runs on a shared machine is\n")
        .append("20-50%: compare ratios within one run, not absolute figures across runs.\n");
    return md.toString();
  }

  private static void ratio(StringBuilder md, List<BenchMain.Row> rows, int threads, String label, String numerator,
      String denominator, ToDoubleFunction<BenchMain.Row> metric, double target, boolean atLeast) {
    String one = ratio(rows, 1, numerator, denominator, metric);
    String many = threads == 1 ? "-" : ratio(rows, threads, numerator, denominator, metric);
    String goal = "-";
    if (!Double.isNaN(target)) {
      Optional<Double> at8 = value(rows, 8, numerator, denominator, metric);
      goal = (atLeast ? ">= " : "<= ") + target + " at 8 threads"
          + at8.map(v -> (atLeast ? v >= target : v <= target) ? ": met" : ": NOT met").orElse(": not measured");
    }
    if (one.equals("-") && many.equals("-")) {
      return;
    }
    md.append("| ").append(label).append(" | ").append(one).append(" | ").append(many).append(" | ").append(goal).append(" |\n");
  }

  private static String ratio(List<BenchMain.Row> rows, int threads, String numerator, String denominator,
      ToDoubleFunction<BenchMain.Row> metric) {
    return value(rows, threads, numerator, denominator, metric)
        .map(v -> String.format(Locale.ROOT, "%.2fx", v)).orElse("-");
  }

  private static Optional<Double> value(List<BenchMain.Row> rows, int threads, String numerator, String denominator,
      ToDoubleFunction<BenchMain.Row> metric) {
    Optional<BenchMain.Row> n = find(rows, threads, numerator);
    Optional<BenchMain.Row> d = find(rows, threads, denominator);
    if (n.isEmpty() || d.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(metric.applyAsDouble(n.get()) / metric.applyAsDouble(d.get()));
  }

  private static Optional<BenchMain.Row> find(List<BenchMain.Row> rows, int threads, String benchmark) {
    return rows.stream().filter(r -> r.threads() == threads && r.benchmark().equals(benchmark) && r.ok()).findFirst();
  }

  private static String memory() {
    return proc("/proc/meminfo", "MemTotal:").map(v -> {
      long kb = Long.parseLong(v.replace("kB", "").trim());
      return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
    }).orElse("n/a");
  }

  private static String cpu() {
    return proc("/proc/cpuinfo", "model name").map(v -> v.replaceFirst("^\\s*:\\s*", "")).orElse("n/a");
  }

  private static Optional<String> proc(String file, String key) {
    try {
      return Files.readAllLines(Path.of(file)).stream().filter(l -> l.startsWith(key))
          .map(l -> l.substring(key.length()).trim()).findFirst();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
