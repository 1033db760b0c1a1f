package dev.leasehold.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.ListStatistics;

/** The report's arithmetic: each step's difference to the step before it, and ratios to the raw pair. */
class BenchReportUnitTests {
  private static final String PREFIX = "AcquireReleaseBenchmark.";

  @Test
  void eachStepIsSetAgainstTheStepBeforeIt_atEachThreadCount() {
    List<BenchMain.Row> rows = new ArrayList<>();
    List<CpuMeter.Figures> cpu = new ArrayList<>();
    // Means 100, 104, 110, 125 us at 1 thread; CPU per op rises 1, 2 and 4 us on the client.
    step(rows, cpu, "raw", 1, 100, 50, 20);
    step(rows, cpu, "rawScript", 1, 104, 51, 22);
    step(rows, cpu, "gateway", 1, 110, 53, 27);
    step(rows, cpu, "adapter", 1, 125, 57, 27.5);
    step(rows, cpu, "raw", 8, 400, 30, 10);
    step(rows, cpu, "rawScript", 8, 380, 30, 11);
    step(rows, cpu, "gateway", 8, 390, 29, 12);
    step(rows, cpu, "adapter", 8, 420, 31, 12);

    String md = report(rows, cpu);

    assertTrue(md.contains("| rawScript | a script: the same SET NX PX inside one, answering an array as ACQUIRE does | 1 | "
        + "0.96x | 104.0 | +4.0 | 51.0 | +1.0 | 22.0 | +2.0 |"), md);
    // Throughput = threads / mean: 100/125 = 0.80x.
    assertTrue(md.contains("| adapter | the adapter's client side: attempt (its owner token for the UUID), checks, ledger, handle | 1 | "
        + "0.80x | 125.0 | +15.0 | 57.0 | +4.0 | 27.5 | +0.5 |"), md);
    assertTrue(md.contains("| raw | the baseline: SET NX PX, compare-and-delete | 8 | 1.00x | 400.0 | - | 30.0 | - | 10.0 | - |"), md);
    assertTrue(md.contains("| rawScript | a script: the same SET NX PX inside one, answering an array as ACQUIRE does | 8 | "
        + "1.05x | 380.0 | -20.0 | 30.0 | +0.0 | 11.0 | +1.0 |"), md);
    assertTrue(md.contains("| adapter | the adapter's client side: attempt (its owner token for the UUID), checks, ledger, handle | 8 | "
        + "0.95x | 420.0 | +30.0 | 31.0 | +2.0 | 12.0 | +0.0 |"), md);
  }

  @Test
  void withoutTheGatewayStep_theStepTableIsLeftOut() {
    List<BenchMain.Row> rows = new ArrayList<>();
    List<CpuMeter.Figures> cpu = new ArrayList<>();
    step(rows, cpu, "raw", 1, 100, 50, 20);
    step(rows, cpu, "adapter", 1, 125, 57, 27.5);

    assertFalse(report(rows, cpu).contains("step by step"));
  }

  private static String report(List<BenchMain.Row> rows, List<CpuMeter.Figures> cpu) {
    OffsetDateTime now = OffsetDateTime.of(2026, 12, 4, 0, 0, 0, 0, ZoneOffset.UTC);
    return BenchReport.markdown(now, Duration.ofSeconds(1), "0 0 0", "0 0 0", "7.0.15", 1, 1, 1, TimeValue.seconds(1),
        8, rows, List.of(), cpu);
  }

  /** A benchmark whose samples all took {@code mean} us, and its CPU figures over 1,000 operations. */
  private static void step(List<BenchMain.Row> rows, List<CpuMeter.Figures> cpu, String method, int threads, double mean,
      double clientMicros, double serverMicros) {
    rows.add(new BenchMain.Row(PREFIX + method, threads, new ListStatistics(new double[] {mean, mean, mean}), 0));
    cpu.add(new CpuMeter.Figures("dev.leasehold.bench." + PREFIX + method, threads, 1_000,
        Math.round(clientMicros * 1_000_000), serverMicros / 1_000));
  }
}
