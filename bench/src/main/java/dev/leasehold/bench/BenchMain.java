package dev.leasehold.bench;

import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.Statistics;

/**
 * Runs every benchmark of this module against one redis-server it starts on loopback, in one
 * process, so the ratios compare like with like; then writes a Markdown report.
 *
 * <p>Two JMH runs share the server: at 1 thread (acquire+release five ways, renew, handoff, the
 * client path without I/O) and at {@code --threads} (acquire+release five ways, renew, client
 * path). Each benchmark runs in its own forked JVM
 * in {@code SampleTime} mode, which gives the latency distribution; throughput is derived from it by
 * Little's law for a closed loop ({@code threads / mean latency}), so both come from the same
 * samples. Then {@link ScriptCost} measures the server's time per call of each script next to the
 * raw commands ({@code INFO commandstats}), on the same server. Options ({@code --name=value}): {@code forks}, {@code warmups}, {@code iterations},
 * {@code time} (per iteration: {@code 1} = 1 s, or {@code 500ms}), {@code threads}, {@code include}
 * (an extra regex on benchmark names, empty for all) and {@code report} (the Markdown file).
 * Exits with 1 if a benchmark failed; the report then marks it.
 *
 * <p>This class is not threadsafe; it is a program.
 */
public final class BenchMain {
  private static final String PACKAGE = "dev.leasehold.bench.";
  static final String ACQUIRE_RELEASE = PACKAGE + "AcquireReleaseBenchmark.";
  static final String RENEW = PACKAGE + "RenewBenchmark.";
  static final String HANDOFF = PACKAGE + "HandoffBenchmark.";
  static final String CLIENT_PATH = PACKAGE + "ClientPathBenchmark.";

  private BenchMain() {}

  /** One row of the table: a benchmark at a thread count, or a failure. */
  record Row(String benchmark, int threads, Statistics stats, double meanError) {
    boolean ok() {
      return stats != null && stats.getN() > 0;
    }

    /** ops/s by Little's law: each of {@code threads} runs operations back to back. */
    double throughput() {
      return threads * 1_000_000.0 / stats.getMean();
    }
  }

  public static void main(String[] args) throws RunnerException {
    Map<String, String> options = parse(args);
    int forks = Integer.parseInt(options.getOrDefault("forks", "1"));
    int warmups = Integer.parseInt(options.getOrDefault("warmups", "8"));
    int iterations = Integer.parseInt(options.getOrDefault("iterations", "3"));
    TimeValue time = time(options.getOrDefault("time", "1"));
    int threads = Integer.parseInt(options.getOrDefault("threads", "8"));
    String include = options.getOrDefault("include", "");
    Path report = Path.of(options.getOrDefault("report", "target/bench-report.md")).toAbsolutePath();
    Path dir = report.getParent();
    mkdirs(dir);

    OffsetDateTime started = OffsetDateTime.now(ZoneOffset.UTC);
    String loadBefore = loadAverage();
    List<Row> rows = new ArrayList<>();
    List<ScriptCost.Cost> scriptCosts;
    String redisVersion;
    clearCpuFigures(dir);
    long wallStart = System.nanoTime();
    try (RedisProcess redis = RedisProcess.start("bench")) {
      redisVersion = redisVersion(redis);
      String uri = "redis://127.0.0.1:" + redis.port();
      System.out.printf(Locale.ROOT, "bench: redis-server %s on %s; JMH log in %s%n", redisVersion, uri,
          dir.resolve("bench-jmh.log"));
      rows.addAll(run(uri, 1, forks, warmups, iterations, time, include, dir,
          List.of(ACQUIRE_RELEASE, RENEW, HANDOFF, CLIENT_PATH)));
      if (threads != 1) {
        rows.addAll(run(uri, threads, forks, warmups, iterations, time, include, dir,
            List.of(ACQUIRE_RELEASE, RENEW, CLIENT_PATH)));
      }
      System.out.printf(Locale.ROOT, "bench: server time per script (%d rounds of %,d calls each)...%n",
          ScriptCost.DEFAULT_ROUNDS, ScriptCost.DEFAULT_CALLS);
      scriptCosts = ScriptCost.measure(redis.uri(), majorVersion(redisVersion) >= 7, ScriptCost.DEFAULT_ROUNDS,
          ScriptCost.DEFAULT_CALLS);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - wallStart);
    String markdown = BenchReport.markdown(started, took, loadBefore, loadAverage(), redisVersion,
        forks, warmups, iterations, time, threads, rows, scriptCosts, cpuFigures(dir));
    try {
      Files.writeString(report, markdown, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.out.println(markdown);
    System.out.println("bench: report written to " + report);
    if (rows.stream().anyMatch(r -> !r.ok())) {
      System.err.println("bench: some benchmarks FAILED; see " + dir.resolve("bench-jmh.log"));
      System.exit(1);
    }
  }

  private static List<Row> run(String uri, int threads, int forks, int warmups, int iterations, TimeValue time,
      String include, Path dir, List<String> benchmarks) throws RunnerException {
    List<String> names = new ArrayList<>();
    for (String prefix : benchmarks) {
      for (String method : methods(prefix)) {
        String name = prefix + method;
        if (include.isBlank() || Pattern.compile(include).matcher(name).find()) {
          names.add(name);
        }
      }
    }
    List<Row> rows = new ArrayList<>();
    if (names.isEmpty()) {
      return rows;
    }
    ChainedOptionsBuilder builder = new OptionsBuilder()
        .forks(forks)
        .warmupIterations(warmups)
        .warmupTime(time)
        .measurementIterations(iterations)
        .measurementTime(time)
        .threads(threads)
        .shouldFailOnError(false)
        .jvmArgsAppend("-D" + BenchRedis.URI_PROPERTY + "=" + uri, "-D" + CpuMeter.DIR_PROPERTY + "=" + cpuDir(dir),
            "-Xmx512m",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
        .output(dir.resolve("bench-jmh.log").toString() + (threads == 1 ? "" : "." + threads))
        .result(dir.resolve("bench-results-t" + threads + ".json").toString())
        .resultFormat(ResultFormatType.JSON);
    for (String name : names) {
      builder.include("^" + Pattern.quote(name) + "$");
    }
    System.out.printf(Locale.ROOT, "bench: %d benchmarks at %d thread(s)...%n", names.size(), threads);
    Collection<RunResult> results = new Runner(builder.build()).run();
    Map<String, RunResult> byName = new LinkedHashMap<>();
    for (RunResult result : results) {
      byName.put(result.getParams().getBenchmark(), result);
    }
    for (String name : names) {
      RunResult result = byName.get(name);
      if (result == null) {
        rows.add(new Row(name.substring(PACKAGE.length()), threads, null, Double.NaN));
        continue;
      }
      Result<?> primary = result.getPrimaryResult();
      rows.add(new Row(name.substring(PACKAGE.length()), threads, primary.getStatistics(), primary.getScoreError()));
    }
    return rows;
  }

  /** The benchmark methods of a class, in the order the report lists them. */
  private static List<String> methods(String prefix) {
    if (prefix.equals(ACQUIRE_RELEASE)) {
      // From the raw pair to the adapter, in the report's steps, then Redisson.
      List<String> methods = new ArrayList<>(BenchReport.stepMethods());
      methods.add("redisson");
      return methods;
    }
    if (prefix.equals(RENEW) || prefix.equals(CLIENT_PATH)) {
      return List.of("adapter");
    }
    return List.of("adapter", "redisson");
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new IllegalArgumentException("expected --name=value, got " + arg);
      }
      int eq = arg.indexOf('=');
      options.put(arg.substring(2, eq), arg.substring(eq + 1).trim());
    }
    return options;
  }

  private static TimeValue time(String text) {
    return text.chars().allMatch(Character::isDigit) ? TimeValue.seconds(Long.parseLong(text)) : TimeValue.fromString(text);
  }

  private static String redisVersion(RedisProcess redis) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      String info = connection.sync().info("server");
      for (String line : info.split("\r?\n")) {
        if (line.startsWith("redis_version:")) {
          return line.substring("redis_version:".length()).trim();
        }
      }
      return "unknown";
    } finally {
      client.shutdown();
    }
  }

  /** Where the benchmark JVMs write their {@link CpuMeter} figures. */
  private static Path cpuDir(Path dir) {
    return dir.resolve("bench-cpu");
  }

  private static void clearCpuFigures(Path dir) {
    try {
      Files.createDirectories(cpuDir(dir));
      try (var files = Files.list(cpuDir(dir))) {
        for (Path f : files.toList()) {
          Files.delete(f);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<CpuMeter.Figures> cpuFigures(Path dir) {
    try (var files = Files.list(cpuDir(dir))) {
      List<CpuMeter.Figures> figures = new ArrayList<>();
      for (Path f : files.sorted().toList()) {
        figures.add(CpuMeter.Figures.parse(Files.readString(f, StandardCharsets.UTF_8)));
      }
      return figures;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The major version of {@code x.y.z}; 7 (shebang scripts) when the server did not say. */
  private static int majorVersion(String version) {
    int dot = version.indexOf('.');
    return dot > 0 && version.substring(0, dot).chars().allMatch(Character::isDigit)
        ? Integer.parseInt(version.substring(0, dot)) : 7;
  }

  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "n/a";
    }
  }

  private static void mkdirs(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String date(OffsetDateTime t) {
    return t.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
  }
}
