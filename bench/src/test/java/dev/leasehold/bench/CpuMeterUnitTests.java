package dev.leasehold.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The figures each fork of a benchmark adds to its file, as the report reads them. */
class CpuMeterUnitTests {
  @Test
  void theFiguresOfSeveralForks_areSummed(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("dev.leasehold.bench.AcquireReleaseBenchmark.raw-t1.cpu");
    CpuMeter.addLine(file, "dev.leasehold.bench.AcquireReleaseBenchmark.raw 1 1000 150000000 0.050000\n");
    CpuMeter.addLine(file, "dev.leasehold.bench.AcquireReleaseBenchmark.raw 1 3000 250000000 0.070000\n");

    CpuMeter.Figures figures = CpuMeter.Figures.parse(Files.readString(file, StandardCharsets.UTF_8));

    assertEquals("dev.leasehold.bench.AcquireReleaseBenchmark.raw", figures.benchmark());
    assertEquals(1, figures.threads());
    assertEquals(4_000, figures.ops());
    assertEquals(400_000_000, figures.clientNanos());
    assertEquals(100.0, figures.clientMicrosPerOp(), 1e-9);
    assertEquals(30.0, figures.serverMicrosPerOp(), 1e-6);
  }

  /** The JVM compiled its start-up code before any test ran: a reading of 0 means no compiler thread was found. */
  @Test
  void compilerCpuNanos_findsTheJitCompilerThreads_withinTheProcessTime() {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "no /proc here");
    long compiler = CpuMeter.compilerCpuNanos();
    assertTrue(compiler > 0, "JIT compiler CPU " + compiler);
    assertTrue(compiler <= CpuMeter.processCpuNanos(), "JIT compiler CPU above the process's");
  }

  @Test
  void serverCpuSeconds_addUserAndSystem_ofTheServerOnly() {
    String cpu = String.join("\r\n", "# CPU", "used_cpu_sys:1.250000", "used_cpu_user:2.500000",
        "used_cpu_sys_children:9.000000", "used_cpu_user_children:9.000000", "");
    assertEquals(3.75, CpuMeter.serverCpuSeconds(cpu), 1e-9);
  }
}
