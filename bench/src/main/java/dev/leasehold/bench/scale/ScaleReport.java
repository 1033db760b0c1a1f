package dev.leasehold.bench.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * The scale report: {@code scale-report.md}, a table per scenario, the targets judged against the
 * figures, and one SVG chart per measure with each library's curve.
 *
 * <p>This class is stateless and threadsafe.
 */
final class ScaleReport {
  static final String LEASEHOLD = "Leasehold";
  static final String REDISSON = "Redisson";
  static final int HEAP_MIN_LEASES = 1_000;

  /** Everything one run measured, and where it ran. */
  record Run(List<HandoffScale.Result> handoffs, List<HeldLeasesScale.Result> held, List<SpreadScale.Result> spread,
      StalledPrimaryScale.Result stalled, double loadBefore, double loadAfter, Duration took, String redisVersion, int cores, ScaleMain.Plan plan) {}

  private ScaleReport() {}

  /** Writes the report and its charts into {@code dir}; returns the report's path. */
  static Path write(Path dir, Run run) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Scale report\n\n");
    md.append(String.format(Locale.ROOT, "One run: %d cores, redis-server %s on loopback, load average %.2f before "
        + "and %.2f after, %d s in all. Leasehold and Redisson 4.7.0 run one after the other at each size.%n%n",
        run.cores(), run.redisVersion(), run.loadBefore(), run.loadAfter(), run.took().toSeconds()));
    handoffs(dir, run, md);
    held(dir, run, md);
    spread(dir, run, md);
    stalled(run.stalled(), md);
    Path report = dir.resolve("scale-report.md");
    Files.writeString(report, md, StandardCharsets.UTF_8);
    return report;
  }

  private static void handoffs(Path dir, Run run, StringBuilder md) throws IOException {
    List<HandoffScale.Result> rows = run.handoffs();
    md.append("## Handoff: N waiters on one resource\n\n");
    md.append(String.format(Locale.ROOT, "N + 1 threads over %d clients take turns; a handoff is the time from the "
        + "start of the holder's release to the next holder's grant. Each row measures %d s after %d s of warm-up "
        + "(TTL %d s, held %d ms). CPU and commands are per handoff.%n%n", HandoffScale.CLIENTS,
        run.plan().handoffMeasure().toSeconds(), run.plan().handoffWarmup().toSeconds(), HandoffScale.TTL.toSeconds(),
        HandoffScale.HOLD.toMillis()));
    md.append("| waiters | library | handoffs | p50 (us) | p99 (us) | commands per handoff | server CPU (us) | "
        + "client CPU (us) |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (HandoffScale.Result r : rows) {
      md.append(String.format(Locale.ROOT, "| %,d | %s | %d | %s | %s | %.2f | %s | %s |%n", r.waiters(), r.library(),
          r.handoffs(), num(r.latency().p50Micros()), num(r.latency().p99Micros()), r.commandsPerHandoff(),
          num(r.serverCpuMicrosPerHandoff()), num(r.clientCpuMicrosPerHandoff())));
    }
    md.append('\n');
    chart(dir, md, "scale-handoff-p50.svg", "Handoff latency, p50", "waiters", "microseconds", rows,
        HandoffScale.Result::library, HandoffScale.Result::waiters, r -> r.latency().p50Micros());
    chart(dir, md, "scale-handoff-p99.svg", "Handoff latency, p99", "waiters", "microseconds", rows,
        HandoffScale.Result::library, HandoffScale.Result::waiters, r -> r.latency().p99Micros());
    chart(dir, md, "scale-handoff-commands.svg", "Commands sent per handoff", "waiters", "commands", rows,
        HandoffScale.Result::library, HandoffScale.Result::waiters, HandoffScale.Result::commandsPerHandoff);
    chart(dir, md, "scale-handoff-client-cpu.svg", "Client CPU per handoff", "waiters", "microseconds", rows,
        HandoffScale.Result::library, HandoffScale.Result::waiters, HandoffScale.Result::clientCpuMicrosPerHandoff);
    chart(dir, md, "scale-handoff-server-cpu.svg", "Server CPU per handoff", "waiters", "microseconds", rows,
        HandoffScale.Result::library, HandoffScale.Result::waiters, HandoffScale.Result::serverCpuMicrosPerHandoff);
    HandoffScale.Result first = find(rows, r -> r.library().equals(LEASEHOLD) && r.waiters() == minOf(rows, HandoffScale.Result::waiters));
    HandoffScale.Result last = find(rows, r -> r.library().equals(LEASEHOLD) && r.waiters() == maxOf(rows, HandoffScale.Result::waiters));
    md.append("| target | figure | verdict |\n| --- | ---: | --- |\n");
    target(md, String.format(Locale.ROOT, "commands per handoff at N = %,d at most 3", last.waiters()),
        last.commandsPerHandoff(), last.commandsPerHandoff() <= 3);
    double growth = last.latency().p99Micros() / first.latency().p99Micros();
    target(md, String.format(Locale.ROOT, "p99 at N = %,d at most 3x p99 at N = %,d", last.waiters(), first.waiters()),
        growth, growth <= 3);
    for (HandoffScale.Result ours : rows) {
      if (ours.library().equals(LEASEHOLD)) {
        HandoffScale.Result theirs = find(rows, r -> r.library().equals(REDISSON) && r.waiters() == ours.waiters());
        double p50 = ours.latency().p50Micros() / theirs.latency().p50Micros();
        double p99 = ours.latency().p99Micros() / theirs.latency().p99Micros();
        target(md, String.format(Locale.ROOT, "N = %,d: p50 and p99 Leasehold/Redisson at most 1", ours.waiters()),
            Math.max(p50, p99), p50 <= 1 && p99 <= 1);
      }
    }
    md.append('\n');
  }

  /** Where the held-lease targets compare the two libraries. */
  private static final int COMPARED_LEASES = 10_000;

  private static void held(Path dir, Run run, StringBuilder md) throws IOException {
    List<HeldLeasesScale.Result> rows = run.held();
    long ttlMillis = run.plan().heldTtl().toMillis();
    md.append("## Held leases: M leases kept by one client's watchdog\n\n");
    md.append(String.format(Locale.ROOT, "TTL %d s, renewed every TTL / 3 by both libraries; the window is two "
        + "renewal periods, after one renewal period that every lease was renewed in. Renewals: what Leasehold's "
        + "watchdog reported (Redisson does not say); commands: what clients sent, per second. Heap per lease from %,d leases on. Lateness: how long after it was due a renewal was sent (Leasehold only: "
        + "Redisson does not show when a renewal was due). Client CPU is the whole JVM's; \"of which JIT\" is "
        + "the part its JIT compiler threads took (compiling the code, which depends on when each library's "
        + "code gets hot, not on what it does per renewal), \"steady\" the rest.%n%n", ttlMillis / 1000,
        HEAP_MIN_LEASES));
    md.append("| leases | library | renewals/s | commands/s | client CPU (% of a core) | of which JIT (%) | "
        + "steady client CPU (%) | server CPU (%) | lateness p50 (ms) | lateness p99 (ms) | heap per lease (bytes) |\n"
        + "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (HeldLeasesScale.Result r : rows) {
      md.append(String.format(Locale.ROOT, "| %,d | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |%n",
          r.leases(), r.library(), num(r.renewalsPerSecond()), num(r.renewCommandsPerSecond()), r.clientCpuPercent(),
          r.jitCpuPercent(), r.steadyCpuPercent(), r.serverCpuPercent(), num(r.lateness().p50Micros() / 1000),
          num(r.lateness().p99Micros() / 1000), num(heap(r))));
    }
    md.append('\n');
    chart(dir, md, "scale-held-client-cpu.svg", "Client CPU keeping M leases", "leases held", "% of one core", rows,
        HeldLeasesScale.Result::library, HeldLeasesScale.Result::leases, HeldLeasesScale.Result::clientCpuPercent);
    chart(dir, md, "scale-held-server-cpu.svg", "Server CPU keeping M leases", "leases held", "% of one core", rows,
        HeldLeasesScale.Result::library, HeldLeasesScale.Result::leases, HeldLeasesScale.Result::serverCpuPercent);
    chart(dir, md, "scale-held-commands.svg", "Commands per second keeping M leases", "leases held", "commands/s",
        rows, HeldLeasesScale.Result::library, HeldLeasesScale.Result::leases,
        HeldLeasesScale.Result::renewCommandsPerSecond);
    chart(dir, md, "scale-held-heap.svg", "Heap per held lease", "leases held", "bytes", rows,
        HeldLeasesScale.Result::library, HeldLeasesScale.Result::leases, ScaleReport::heap);
    md.append("| target | figure | verdict |\n| --- | ---: | --- |\n");
    int compared = Math.min(COMPARED_LEASES, maxOf(rows, HeldLeasesScale.Result::leases));
    HeldLeasesScale.Result ours = find(rows, r -> r.library().equals(LEASEHOLD) && r.leases() == compared);
    HeldLeasesScale.Result theirs = find(rows, r -> r.library().equals(REDISSON) && r.leases() == compared);
    String at = String.format(Locale.ROOT, "M = %,d: ", compared);
    double clientRatio = ours.clientCpuPercent() / theirs.clientCpuPercent();
    target(md, at + "client CPU Leasehold/Redisson at most 1", clientRatio, clientRatio <= 1);
    double steadyRatio = ours.steadyCpuPercent() / theirs.steadyCpuPercent();
    target(md, at + "steady client CPU (without the JIT) Leasehold/Redisson at most 1", steadyRatio, steadyRatio <= 1);
    double serverRatio = ours.serverCpuPercent() / theirs.serverCpuPercent();
    target(md, at + "server CPU Leasehold/Redisson at most 1", serverRatio, serverRatio <= 1);
    double commandRatio = ours.renewCommandsPerSecond() / theirs.renewCommandsPerSecond();
    target(md, at + "commands per second Leasehold/Redisson at most 2", commandRatio, commandRatio <= 2);
    double heapRatio = ours.heapBytesPerLease() / theirs.heapBytesPerLease();
    target(md, at + "heap per lease Leasehold/Redisson at most 1", heapRatio, heapRatio <= 1);
    int most = maxOf(rows, HeldLeasesScale.Result::leases);
    HeldLeasesScale.Result largest = find(rows, r -> r.library().equals(LEASEHOLD) && r.leases() == most);
    lateness(md, ours, ttlMillis);
    if (largest != ours) {
      lateness(md, largest, ttlMillis);
    }
    target(md, String.format(Locale.ROOT, "M = %,d: client CPU at most 5%% of one core", most),
        largest.clientCpuPercent(), largest.clientCpuPercent() <= 5);
    target(md, String.format(Locale.ROOT, "M = %,d: steady client CPU (without the JIT) at most 5%% of one core", most),
        largest.steadyCpuPercent(), largest.steadyCpuPercent() <= 5);
    md.append('\n');
  }

  private static void lateness(StringBuilder md, HeldLeasesScale.Result r, long ttlMillis) {
    double lateShare = r.lateness().p99Micros() / 1000 / ttlMillis * 100;
    target(md, String.format(Locale.ROOT, "M = %,d: renewal lateness p99 at most 1%% of the TTL (%% of the TTL)",
        r.leases()), lateShare, lateShare <= 1);
  }

  private static void stalled(StalledPrimaryScale.Result r, StringBuilder md) {
    md.append("## One stalled Cluster primary\n\n");
    md.append(String.format(Locale.ROOT, "Leasehold's watchdog keeps %,d leases (TTL %d s) over the three primaries "
        + "of a cluster; one primary, holding %,d of them, is stopped (SIGSTOP) for %d s, longer than the TTL. "
        + "Lateness: how long after it was due each renewal of a lease on the other primaries was sent during the "
        + "stall (%,d renewals).%n%n", r.leases(), r.ttl().toSeconds(), r.onStopped(), r.stall().toSeconds(),
        r.lateness().count()));
    md.append("| target | figure | verdict |\n| --- | ---: | --- |\n");
    double lateShare = r.lateness().p99Micros() / 1000 / r.ttl().toMillis() * 100;
    target(md, "other primaries: renewal lateness p99 at most 1% of the TTL (% of the TTL)", lateShare, lateShare <= 1);
    target(md, "other primaries: leases reported lost", r.healthyReported(), r.healthyReported() == 0);
    target(md, "stopped primary: leases reported exactly once", r.reportedOnce(), r.reportedOnce() == r.onStopped());
    target(md, "stopped primary: leases reported never or twice", r.reportedOtherwise(), r.reportedOtherwise() == 0);
    md.append('\n');
  }

  private static void spread(Path dir, Run run, StringBuilder md) throws IOException {
    List<SpreadScale.Result> rows = run.spread();
    md.append("## Spread: acquire+release over many resources\n\n");
    md.append(String.format(Locale.ROOT, "%d threads, each cycling through resources of its own (one try each, "
        + "never contended), on one server and on a cluster of 3 primaries and 3 replicas (CPU summed over its "
        + "nodes).%n%n", SpreadScale.THREADS));
    md.append("| topology | resources per thread | library | throughput (ops/s) | p50 (us) | p99 (us) | "
        + "client CPU (us/op) | server CPU (us/op) |\n| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (SpreadScale.Result r : rows) {
      md.append(String.format(Locale.ROOT, "| %s | %,d | %s | %,.0f | %s | %s | %s | %s |%n", r.topology(),
          r.perThread(), r.library(), r.throughput(), num(r.latency().p50Micros()), num(r.latency().p99Micros()),
          num(r.clientCpuMicrosPerOp()), num(r.serverCpuMicrosPerOp())));
    }
    md.append('\n');
    List<String> topologies = rows.stream().map(SpreadScale.Result::topology).distinct().toList();
    for (String topology : topologies) {
      chart(dir, md, "scale-spread-" + topology + ".svg", "Acquire+release throughput, " + topology + ", "
          + SpreadScale.THREADS + " threads", "resources per thread", "operations/s",
          rows.stream().filter(r -> r.topology().equals(topology)).toList(),
          SpreadScale.Result::library, SpreadScale.Result::perThread, SpreadScale.Result::throughput);
    }
    md.append("| target | figure | verdict |\n| --- | ---: | --- |\n");
    for (String topology : topologies) {
      List<SpreadScale.Result> some = rows.stream().filter(r -> r.topology().equals(topology)).toList();
      SpreadScale.Result one = find(some, r -> r.library().equals(LEASEHOLD)
          && r.perThread() == minOf(some, SpreadScale.Result::perThread));
      SpreadScale.Result many = find(some, r -> r.library().equals(LEASEHOLD)
          && r.perThread() == maxOf(some, SpreadScale.Result::perThread));
      double ratio = many.throughput() / one.throughput();
      target(md, String.format(Locale.ROOT, "%s: throughput at %,d resources per thread at least 0.9x of %,d",
          topology, many.perThread(), one.perThread()), ratio, ratio >= 0.9);
    }
    md.append('\n');
  }

  /** One chart, a curve per library in the order the rows name them, linked from the report. */
  private static <R> void chart(Path dir, StringBuilder md, String file, String title, String xLabel, String yLabel,
      List<R> rows, Function<R, String> library, ToDoubleFunction<R> x, ToDoubleFunction<R> y) throws IOException {
    Map<String, List<LineChart.Point>> curves = new LinkedHashMap<>();
    for (R row : rows) {
      double value = y.applyAsDouble(row);
      if (Double.isFinite(value)) {
        curves.computeIfAbsent(library.apply(row), k -> new ArrayList<>())
            .add(new LineChart.Point(x.applyAsDouble(row), value));
      }
    }
    List<LineChart.Series> series = curves.entrySet().stream()
        .map(e -> new LineChart.Series(e.getKey(), e.getValue())).toList();
    if (series.isEmpty()) {
      return;
    }
    Files.writeString(dir.resolve(file), LineChart.svg(title, xLabel, yLabel, true, series), StandardCharsets.UTF_8);
    md.append("![").append(title).append("](").append(file).append(")\n\n");
  }

  /**
   * Heap per lease where the leases outweigh the noise of a heap reading after a collection (a few
   * hundred KB from run to run); NaN, shown as "-", below {@value #HEAP_MIN_LEASES} leases.
   */
  private static double heap(HeldLeasesScale.Result r) {
    return r.leases() < HEAP_MIN_LEASES ? Double.NaN : r.heapBytesPerLease();
  }

  private static void target(StringBuilder md, String target, double figure, boolean met) {
    md.append(String.format(Locale.ROOT, "| %s | %s | %s |%n", target, num(figure), met ? "met" : "NOT met"));
  }

  private static <R> R find(List<R> rows, Predicate<R> which) {
    return rows.stream().filter(which).findFirst().orElseThrow(() -> new IllegalStateException("no such row"));
  }

  private static <R> int minOf(List<R> rows, java.util.function.ToIntFunction<R> size) {
    return rows.stream().mapToInt(size).min().orElseThrow();
  }

  private static <R> int maxOf(List<R> rows, java.util.function.ToIntFunction<R> size) {
    return rows.stream().mapToInt(size).max().orElseThrow();
  }

  /** Three significant digits at most, grouped; "-" for what was not measured. */
  static String num(double value) {
    if (!Double.isFinite(value)) {
      return "-";
    }
    if (Math.abs(value) >= 100) {
      return String.format(Locale.ROOT, "%,.0f", value);
    }
    if (Math.abs(value) >= 10) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    return String.format(Locale.ROOT, "%.2f", value);
  }
}
