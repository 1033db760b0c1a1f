package dev.leasehold.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * CPU time per operation over the measured iterations of one benchmark: the benchmark JVM's (the
 * client: the benchmark threads, lettuce's I/O thread, JIT and GC) and redis-server's ({@code INFO
 * cpu}, user + system). On two cores shared by both, throughput at 8 threads is bounded by their
 * sum per operation, so this says which side an implementation spends more on. Each benchmark
 * method calls {@link #done()} once per operation. At the end of each fork's trial its figures are
 * added to a file in {@value #DIR_PROPERTY}, which {@link BenchMain} reads into the report.
 *
 * <p>This class is threadsafe.
 */
@State(Scope.Benchmark)
public class CpuMeter {
  /** The system property naming the directory the figures are written to; none, none written. */
  public static final String DIR_PROPERTY = "leasehold.bench.cpuDir";

  private final LongAdder ops = new LongAdder();
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private long clientNanos0;
  private double serverSeconds0;
  private long clientNanos;
  private double serverSeconds;
  private long measuredOps;

  /** One operation done. */
  public void done() {
    ops.increment();
  }

  @Setup(Level.Trial)
  public void connect() {
    client = RedisClient.create(BenchRedis.uri());
    connection = client.connect();
  }

  @Setup(Level.Iteration)
  public void begin() {
    ops.reset();
    clientNanos0 = processCpuNanos();
    serverSeconds0 = serverCpuSeconds();
  }

  @TearDown(Level.Iteration)
  public void end(IterationParams iteration) {
    if (iteration.getType() == IterationType.MEASUREMENT) {
      clientNanos += processCpuNanos() - clientNanos0;
      serverSeconds += serverCpuSeconds() - serverSeconds0;
      measuredOps += ops.sum();
    }
  }

  @TearDown(Level.Trial)
  public void write(BenchmarkParams benchmark) throws IOException {
    connection.close();
    client.shutdown();
    String dir = System.getProperty(DIR_PROPERTY);
    if (dir == null || measuredOps == 0) {
      return;
    }
    String line = String.format(Locale.ROOT, "%s %d %d %d %.6f%n", benchmark.getBenchmark(), benchmark.getThreads(),
        measuredOps, clientNanos, serverSeconds);
    addLine(Path.of(dir).resolve(benchmark.getBenchmark() + "-t" + benchmark.getThreads() + ".cpu"), line);
  }

  /**
   * Appends: each fork is a JVM of its own and would overwrite the earlier forks' line ({@link
   * BenchMain} clears the directory before a run, and the report sums the lines).
   */
  static void addLine(Path file, String line) throws IOException {
    Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /**
   * This JVM's CPU time: every thread of the clients under test (callers, I/O threads, watchdogs),
   * plus the JIT and the garbage collector they cause.
   */
  public static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** Linux's USER_HZ, the unit of /proc's CPU times: 100 on every architecture Linux runs Java on. */
  private static final long NANOS_PER_TICK = 10_000_000L;

  /**
   * The CPU time of this JVM's JIT compiler threads ("C1 CompilerThread", "C2 CompilerThread"),
   * from /proc/self/task; -1 where /proc is missing. The compilers' work depends on when the JIT
   * settles, not on what the measured code does per operation, so a report shows it apart. Run the
   * JVM with {@code -XX:-UseDynamicNumberOfCompilerThreads}: a compiler thread that exits between two
   * readings takes its time with it.
   */
  public static long compilerCpuNanos() {
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return -1;
    }
    long ticks = 0;
    try (var threads = Files.list(tasks)) {
      for (Path task : (Iterable<Path>) threads::iterator) {
        try {
          if (!Files.readString(task.resolve("comm")).matches("C\\d CompilerThre.*\\s*")) {
            continue;
          }
          String stat = Files.readString(task.resolve("stat"));
          // Fields after the parenthesised name: state is field 3, utime 14 and stime 15 (proc(5)).
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
          ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
          // The thread ended between the listing and the read: its time is gone with it.
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return ticks * NANOS_PER_TICK;
  }

  private double serverCpuSeconds() {
    return serverCpuSeconds(connection.sync().info("cpu"));
  }

  /** used_cpu_user + used_cpu_sys of an {@code INFO cpu} reply, in seconds. */
  public static double serverCpuSeconds(String info) {
    double seconds = 0;
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
        seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return seconds;
  }

  /**
   * A benchmark's figures at one thread count, summed over its forks; each fork writes them as a
   * line: benchmark, threads, operations, client CPU ns, server CPU s.
   */
  record Figures(String benchmark, int threads, long ops, long clientNanos, double serverSeconds) {
    double clientMicrosPerOp() {
      return clientNanos / 1_000.0 / ops;
    }

    double serverMicrosPerOp() {
      return serverSeconds * 1_000_000.0 / ops;
    }

    /** The figures of a file's lines (one per fork of the same benchmark), summed. */
    static Figures parse(String lines) {
      Figures sum = null;
      for (String line : lines.trim().split("\\R")) {
        String[] f = line.trim().split(" ");
        Figures fork = new Figures(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
            Double.parseDouble(f[4]));
        sum = sum == null ? fork : new Figures(sum.benchmark, sum.threads, sum.ops + fork.ops,
            sum.clientNanos + fork.clientNanos, sum.serverSeconds + fork.serverSeconds);
      }
      return sum;
    }
  }
}
