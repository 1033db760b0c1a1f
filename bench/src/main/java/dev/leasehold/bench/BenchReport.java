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
      String redisVersion, int forks, int warmups, int iterations, TimeValue time, int threads, List<BenchMain.Row> rows,
      List<ScriptCost.Cost> scriptCosts, List<CpuMeter.Figures> cpu) {
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
        "AcquireReleaseBenchmark.raw", BenchMain.Row::throughput, new Target(0.9, 0.95));
    ratio(md, rows, threads, "acquire+release throughput adapter/Redisson", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.redisson", BenchMain.Row::throughput, new Target(1.5, 3.0));
    // The raw pair makes the same two round trips with no guarantee: the adapter's ratio to Redisson cannot go far past it.
    ratio(md, rows, threads, "acquire+release throughput raw/Redisson (the baseline's own margin)",
        "AcquireReleaseBenchmark.raw", "AcquireReleaseBenchmark.redisson", BenchMain.Row::throughput, null);
    ratio(md, rows, threads, "acquire+release p50 latency adapter/raw", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.raw", r -> r.stats().getPercentile(50), null);
    ratio(md, rows, threads, "acquire+release p99 latency adapter/raw", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.raw", r -> r.stats().getPercentile(99), null);
    ratio(md, rows, threads, "acquire+release p50 latency adapter/Redisson", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.redisson", r -> r.stats().getPercentile(50), null);
    ratio(md, rows, threads, "acquire+release p99 latency adapter/Redisson", "AcquireReleaseBenchmark.adapter",
        "AcquireReleaseBenchmark.redisson", r -> r.stats().getPercentile(99), null);
    ratio(md, rows, threads, "adapter's own work (no I/O) / its acquire+release over lettuce, mean",
        "ClientPathBenchmark.adapter", "AcquireReleaseBenchmark.adapter", r -> r.stats().getMean(), null);
    ratio(md, rows, threads, "handoff p50 latency adapter/Redisson", "HandoffBenchmark.adapter",
        "HandoffBenchmark.redisson", r -> r.stats().getPercentile(50), null);
    ratio(md, rows, threads, "handoff p99 latency adapter/Redisson", "HandoffBenchmark.adapter",
        "HandoffBenchmark.redisson", r -> r.stats().getPercentile(99), null);
    md.append("\nTargets (issue 16) are measured, not asserted. Noise between runs on a shared machine is\n")
        .append("20-50%: compare ratios within one run, not absolute figures across runs.\n");
    cpu(md, cpu);
    steps(md, rows, cpu, threads);
    scriptCosts(md, scriptCosts);
    return md.toString();
  }

  /** Client and server CPU per operation of each benchmark that measured it. */
  private static void cpu(StringBuilder md, List<CpuMeter.Figures> cpu) {
    if (cpu.isEmpty()) {
      return;
    }
    md.append("\n## CPU per operation (measured iterations, same run)\n\n");
    md.append("The benchmark JVM's process CPU time (benchmark threads, lettuce, JIT, GC) and redis-server's (`INFO cpu`)\n")
        .append("over the measured iterations, divided by the operations done in them. Both share the machine's cores.\n\n");
    md.append("| benchmark | threads | operations | client CPU (us/op) | server CPU (us/op) | sum (us/op) |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (CpuMeter.Figures f : cpu) {
      md.append(String.format(Locale.ROOT, "| %s | %d | %,d | %.1f | %.1f | %.1f |%n",
          f.benchmark().replace("dev.leasehold.bench.", ""), f.threads(), f.ops(), f.clientMicrosPerOp(),
          f.serverMicrosPerOp(), f.clientMicrosPerOp() + f.serverMicrosPerOp()));
    }
  }

  /** The acquire+release benchmarks from the raw pair to the adapter, in order, and what each step adds. */
  private static final List<Step> STEPS = List.of(
      new Step("raw", "the baseline: SET NX PX, compare-and-delete"),
      new Step("rawScript", "a script: the same SET NX PX inside one, answering an array as ACQUIRE does"),
      new Step("gateway", "the adapter's scripts: fencing token, clock floor, ACL pre-check, release signal"),
      new Step("adapter", "the adapter's client side: attempt (its owner token for the UUID), checks, ledger, handle"));

  private record Step(String method, String adds) {}

  /** The steps' benchmark methods of {@code AcquireReleaseBenchmark}, in order: what {@link BenchMain} runs. */
  static List<String> stepMethods() {
    return STEPS.stream().map(Step::method).toList();
  }

  /**
   * What each step from the raw pair to the adapter adds to the one before it, in mean latency and
   * in client and server CPU per acquire+release: where the adapter's distance to the raw pair goes.
   */
  private static void steps(StringBuilder md, List<BenchMain.Row> rows, List<CpuMeter.Figures> cpu, int threads) {
    String prefix = "AcquireReleaseBenchmark.";
    if (find(rows, 1, prefix + "gateway").isEmpty()) {
      return;
    }
    md.append("\n## From the raw pair to the adapter, step by step (same run)\n\n");
    md.append("Each step adds one thing to the step above it; + is the difference to that step. The server's\n")
        .append("share of the scripts' steps is in the next section, call by call.\n\n");
    md.append("| step | adds | threads | throughput x raw | mean (us) | + mean (us) | client CPU (us/op) | + client |")
        .append(" server CPU (us/op) | + server |\n");
    md.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int t : threads == 1 ? List.of(1) : List.of(1, threads)) {
      Optional<BenchMain.Row> raw = find(rows, t, prefix + "raw");
      Optional<BenchMain.Row> before = Optional.empty();
      Optional<CpuMeter.Figures> cpuBefore = Optional.empty();
      for (Step step : STEPS) {
        Optional<BenchMain.Row> row = find(rows, t, prefix + step.method());
        Optional<CpuMeter.Figures> figures = cpu.stream()
            .filter(f -> f.threads() == t && f.benchmark().endsWith("." + prefix + step.method())).findFirst();
        md.append("| ").append(step.method()).append(" | ").append(step.adds()).append(" | ").append(t).append(" | ")
            .append(number(row.flatMap(r -> raw.map(w -> r.throughput() / w.throughput())), "%.2fx")).append(" | ")
            .append(number(row.map(r -> r.stats().getMean()), "%.1f")).append(" | ")
            .append(number(difference(row, before, r -> r.stats().getMean()), "%+.1f")).append(" | ")
            .append(number(figures.map(CpuMeter.Figures::clientMicrosPerOp), "%.1f")).append(" | ")
            .append(number(difference(figures, cpuBefore, CpuMeter.Figures::clientMicrosPerOp), "%+.1f")).append(" | ")
            .append(number(figures.map(CpuMeter.Figures::serverMicrosPerOp), "%.1f")).append(" | ")
            .append(number(difference(figures, cpuBefore, CpuMeter.Figures::serverMicrosPerOp), "%+.1f")).append(" |\n");
        before = row;
        cpuBefore = figures;
      }
    }
  }

  private static <T> Optional<Double> difference(Optional<T> now, Optional<T> before, ToDoubleFunction<T> metric) {
    // Rounded here, and + 0.0, so that a difference that rounds to zero never prints as "-0.0".
    return now.flatMap(n -> before.map(b -> Math.round((metric.applyAsDouble(n) - metric.applyAsDouble(b)) * 10) / 10.0 + 0.0));
  }

  private static String number(Optional<Double> value, String format) {
    return value.map(v -> String.format(Locale.ROOT, format, v)).orElse("-");
  }

  /** The server's µs per call of each script and raw command, and each against SET NX PX. */
  private static void scriptCosts(StringBuilder md, List<ScriptCost.Cost> costs) {
    if (costs.isEmpty()) {
      return;
    }
    Optional<ScriptCost.Cost> set = costs.stream().filter(c -> c.name().equals("SET NX PX")).findFirst();
    md.append("\n## Server time per call (INFO commandstats, same server)\n\n");
    md.append("Each row ran alone, pipelined, on fresh keys (a release or renew on its own lease), in ")
        .append(costs.get(0).rounds().length).append(" interleaved rounds. Noise only adds time, so the fastest round is\n")
        .append("the closest to the command's own cost. Each ACQUIRE row adds one guarantee to the row above it.\n\n");
    md.append("| call | adds | fastest round (us) | median (us) | x SET NX PX (fastest) | x SET NX PX (median) |\n");
    md.append("| --- | --- | ---: | ---: | ---: | ---: |\n");
    for (ScriptCost.Cost c : costs) {
      md.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %s | %s |%n", c.name(), c.adds(), c.fastestMicros(),
          c.medianMicros(), times(set.map(s -> c.fastestMicros() / s.fastestMicros())),
          times(set.map(s -> c.medianMicros() / s.medianMicros()))));
    }
    Optional<Double> acquire = costs.stream().filter(c -> c.name().equals("ACQUIRE")).findFirst()
        .flatMap(c -> set.map(s -> c.medianMicros() / s.medianMicros()));
    md.append("\nTarget (issue 16): ACQUIRE <= 3x SET NX PX (medians): ")
        .append(acquire.map(v -> v <= 3.0 ? "met" : "NOT met").orElse("not measured")).append(".\n");
  }

  private static String times(Optional<Double> ratio) {
    return ratio.map(v -> String.format(Locale.ROOT, "%.2fx", v)).orElse("-");
  }

  /** A ratio's goal at 1 thread and at 8 threads (at least). */
  private record Target(double oneThread, double eightThreads) {}

  private static void ratio(StringBuilder md, List<BenchMain.Row> rows, int threads, String label, String numerator,
      String denominator, ToDoubleFunction<BenchMain.Row> metric, Target target) {
    String one = ratio(rows, 1, numerator, denominator, metric);
    String many = threads == 1 ? "-" : ratio(rows, threads, numerator, denominator, metric);
    String goal = "-";
    if (target != null) {
      goal = goal(rows, 1, target.oneThread(), numerator, denominator, metric) + "; "
          + goal(rows, 8, target.eightThreads(), numerator, denominator, metric);
    }
    if (one.equals("-") && many.equals("-")) {
      return;
    }
    md.append("| ").append(label).append(" | ").append(one).append(" | ").append(many).append(" | ").append(goal).append(" |\n");
  }

  private static String goal(List<BenchMain.Row> rows, int threads, double atLeast, String numerator,
      String denominator, ToDoubleFunction<BenchMain.Row> metric) {
    return ">= " + atLeast + " at " + threads + (threads == 1 ? " thread" : " threads")
        + value(rows, threads, numerator, denominator, metric).map(v -> v >= atLeast ? ": met" : ": NOT met")
            .orElse(": not measured");
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
