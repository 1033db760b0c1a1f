package dev.leasehold.bench.scale;

import dev.leasehold.testkit.redis.RedisCluster;
import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.RedisURI;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the scale scenarios, Leasehold and Redisson side by side at each size, and writes the
 * report with its charts: {@code ScaleMain [--report=<dir>] [--size=full|quick]}. One {@code redis-server}
 * on loopback serves the handoff, held-lease and spread runs; a six-node cluster (3 primaries) then
 * serves the spread runs again.
 *
 * <p>This class is not threadsafe; it is a program.
 */
public final class ScaleMain {
  /** The sizes and windows of one run. */
  record Plan(List<Integer> waiters, Duration handoffWarmup, Duration handoffMeasure, List<Integer> leases,
      Duration heldTtl, List<Integer> perThread, Duration spreadWarmup, Duration spreadMeasure, int stalledLeases,
      Duration stalledTtl, Duration stall) {
    /** The run the report is made of. */
    static Plan full() {
      return new Plan(List.of(1, 10, 100, 1_000), Duration.ofSeconds(3), Duration.ofSeconds(5),
          List.of(10, 100, 1_000, 10_000, 100_000), Duration.ofSeconds(30), List.of(1, 100, 10_000), Duration.ofSeconds(3),
          Duration.ofSeconds(5), 1_000, Duration.ofSeconds(3), Duration.ofSeconds(5));
    }

    /** A smoke run of every code path in well under a minute. */
    static Plan quick() {
      return new Plan(List.of(1, 10), Duration.ofMillis(500), Duration.ofSeconds(1), List.of(10, 100),
          Duration.ofSeconds(3), List.of(1, 100), Duration.ofMillis(500), Duration.ofSeconds(1), 30, Duration.ofSeconds(3),
          Duration.ofSeconds(4));
    }
  }

  private ScaleMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(option(args, "report", "target/scale"));
    Plan plan = switch (option(args, "size", "full")) {
      case "full" -> Plan.full();
      case "quick" -> Plan.quick();
      default -> throw new IllegalArgumentException("--size must be full or quick");
    };
    Files.createDirectories(dir);
    double loadBefore = load();
    long start = System.nanoTime();
    List<ScaleLibrary> libraries = List.of(new LeaseholdLibrary(), new RedissonLibrary(plan.heldTtl()));
    List<HandoffScale.Result> handoffs = new ArrayList<>();
    List<HeldLeasesScale.Result> held = new ArrayList<>();
    List<SpreadScale.Result> spread = new ArrayList<>();
    String version;
    try (RedisProcess redis = RedisProcess.start("scale");
        ServerMeter meter = new ServerMeter(List.of(redis.uri()))) {
      String server = address(redis.uri());
      version = meter.version();
      for (int waiters : plan.waiters()) {
        for (ScaleLibrary library : libraries) {
          handoffs.add(progress(HandoffScale.run(library, server, meter, waiters, plan.handoffWarmup(),
              plan.handoffMeasure())));
        }
      }
      for (int leases : plan.leases()) {
        for (ScaleLibrary library : libraries) {
          held.add(progress(HeldLeasesScale.run(library, server, meter, leases, plan.heldTtl())));
        }
      }
      for (int perThread : plan.perThread()) {
        for (ScaleLibrary library : libraries) {
          spread.add(progress(SpreadScale.run(library, List.of(server), false, meter, perThread, plan.spreadWarmup(),
              plan.spreadMeasure())));
        }
      }
    }
    StalledPrimaryScale.Result stalled;
    // A node timeout longer than the stall: the stopped primary is not failed over.
    try (RedisCluster cluster = RedisCluster.start("scale", "--cluster-node-timeout", "60000");
        ServerMeter meter = new ServerMeter(cluster.uris())) {
      List<String> seeds = cluster.uris().stream().map(ScaleMain::address).toList();
      for (int perThread : plan.perThread()) {
        for (ScaleLibrary library : libraries) {
          spread.add(progress(SpreadScale.run(library, seeds, true, meter, perThread, plan.spreadWarmup(),
              plan.spreadMeasure())));
        }
      }
      stalled = progress(StalledPrimaryScale.run(cluster, plan.stalledLeases(), plan.stalledTtl(), plan.stall()));
    }
    ScaleReport.Run run = new ScaleReport.Run(handoffs, held, spread, stalled, loadBefore, load(),
        Duration.ofNanos(System.nanoTime() - start), version, Runtime.getRuntime().availableProcessors(), plan);
    Path report = ScaleReport.write(dir, run);
    System.out.println(Files.readString(report));
  }

  private static <T> T progress(T result) {
    System.err.println(result);
    return result;
  }

  private static String address(RedisURI uri) {
    if (!"127.0.0.1".equals(uri.getHost()) && !"localhost".equals(uri.getHost())) {
      throw new IllegalStateException("the scale runs only target loopback, not " + uri.getHost());
    }
    return "redis://" + uri.getHost() + ":" + uri.getPort();
  }

  private static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static String option(String[] args, String name, String fallback) {
    String prefix = "--" + name + "=";
    for (String arg : args) {
      if (arg.startsWith(prefix) && arg.length() > prefix.length()) {
        return arg.substring(prefix.length());
      }
    }
    return fallback;
  }
}
