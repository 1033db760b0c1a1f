package dev.leasehold.bench.scale;

import java.lang.management.ManagementFactory;

/**
 * The benchmark JVM's CPU time: every thread of the clients under test (callers, I/O threads,
 * watchdogs), plus the JIT and the garbage collector they cause.
 *
 * <p>This class is stateless and threadsafe.
 */
final class ProcessCpu {
  private ProcessCpu() {}

  static long nanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
