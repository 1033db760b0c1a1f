package dev.leasehold.bench;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.LeaseScript;
import dev.leasehold.redis.RedisLeaseConfig;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * The server's time per call of each script, next to the raw commands, from {@code INFO
 * commandstats}. Every script is an {@code EVALSHA} there, so each one runs alone: the stats are
 * reset, a batch of calls is sent (pipelined, so the client's speed does not matter: the figure is
 * the time the server spends inside the command), and {@code usec_per_call} of the top-level
 * command is read. Variants run interleaved in rounds, because the machine's noise moves single
 * rounds by tens of percent.
 *
 * <p>Besides the production scripts it measures what their guarantees cost, each variant adding
 * one to the last: an empty script (the floor of any {@code EVALSHA}), a lease in a script without
 * a token ({@code SET NX PX}), ACQUIRE without its ACL pre-check in counter mode (the fencing
 * token) and in clock mode (the clock floor), and ACQUIRE as shipped (the pre-check, Redis 7+).
 *
 * <p>This class is not threadsafe; {@link BenchMain} runs it once.
 */
final class ScriptCost {
  /** Calls per variant and round: enough for a stable mean per round, short enough for the short run. */
  static final int DEFAULT_CALLS = 10_000;
  static final int DEFAULT_ROUNDS = 7;
  private static final String TTL_MS = "60000";
  private static final String LEASE_ONLY = "#!lua\nreturn redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3])";
  private static final String EMPTY = "#!lua\nreturn 1";
  /** ACQUIRE's reply status for a grant: {1, token}. */
  private static final Object GRANTED = "granted";

  /**
   * One measured variant: its name, what it adds, and µs per call in each round. Noise only ever
   * adds time (the server descheduled mid-command), so the fastest round is the closest to what
   * the command itself costs; the median says how typical that was.
   */
  record Cost(String name, String adds, double[] rounds) {
    double fastestMicros() {
      return Arrays.stream(rounds).min().orElse(Double.NaN);
    }

    double medianMicros() {
      double[] sorted = rounds.clone();
      Arrays.sort(sorted);
      return sorted[sorted.length / 2];
    }
  }

  /**
   * What one variant sends ({@code call}, on its own key and value), the top-level command it
   * shows as in {@code INFO commandstats}, whether its keys are set to their values first (a
   * release or renew of its own lease) and the reply it must get: a call that took another path
   * (a refusal, a key already held) fails the run instead of being measured.
   */
  private record Variant(String name, String adds, String command, boolean preset, CallMaker call, Object expected) {}

  @FunctionalInterface
  private interface CallMaker {
    RedisFuture<?> send(RedisAsyncCommands<String, String> redis, String key, String value);
  }

  private ScriptCost() {}

  /**
   * Runs every variant {@code rounds} times, {@code calls} calls each, on the server at {@code uri}
   * ({@code shebang}: Redis 7 or later, which runs the scripts as shipped); flushes the server after.
   */
  static List<Cost> measure(RedisURI uri, boolean shebang, int rounds, int calls) {
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      connection.setTimeout(Duration.ofSeconds(30));
      RedisAsyncCommands<String, String> redis = connection.async();
      Function<String, String> load = source -> connection.sync().scriptLoad(
          shebang ? source : source.substring(source.indexOf('\n') + 1));
      List<Variant> variants = variants(load.apply(EMPTY), load.apply(LEASE_ONLY),
          load.apply(withoutAclCheck(LeaseScript.ACQUIRE.source(true))), load.apply(LeaseScript.ACQUIRE.source(true)),
          load.apply(LeaseScript.RELEASE.source(true)), load.apply(LeaseScript.RENEW.source(true)),
          connection.sync().scriptLoad(AcquireReleaseBenchmark.COMPARE_AND_DELETE));
      Map<String, double[]> figures = new LinkedHashMap<>();
      for (int round = 0; round < rounds; round++) {
        for (Variant v : variants) {
          figures.computeIfAbsent(v.name(), n -> new double[rounds])[round] = run(connection, redis, v, round, calls);
        }
      }
      List<Cost> costs = new ArrayList<>();
      for (Variant v : variants) {
        costs.add(new Cost(v.name(), v.adds(), figures.get(v.name())));
      }
      connection.sync().flushall();
      return costs;
    } finally {
      client.shutdown();
    }
  }

  /** The production script with its ACL pre-check block removed, as Redis 6.2 (no acl_check_cmd) runs it. */
  static String withoutAclCheck(String source) {
    int start = source.indexOf("if redis.acl_check_cmd then\n");
    int end = source.indexOf("\nend\n", start);
    if (start < 0 || end < 0) {
      throw new IllegalStateException("the script has no ACL pre-check block to remove");
    }
    return source.substring(0, start) + source.substring(end + "\nend\n".length());
  }

  private static List<Variant> variants(String empty, String leaseOnly, String acquireNoAcl, String acquire,
      String release, String renew, String compareAndDelete) {
    SetArgs nxPx = SetArgs.Builder.nx().px(Long.parseLong(TTL_MS));
    return List.of(
        new Variant("SET NX PX", "the raw baseline's acquire", "set", false,
            (r, k, v) -> r.set(k, v, nxPx), "OK"),
        new Variant("compare-and-delete", "the raw baseline's release (a script)", "evalsha", true,
            (r, k, v) -> r.evalsha(compareAndDelete, ScriptOutputType.INTEGER, new String[] {k}, v), 1L),
        new Variant("empty script", "EVALSHA itself", "evalsha", false,
            (r, k, v) -> r.evalsha(empty, ScriptOutputType.INTEGER, new String[] {k}), 1L),
        new Variant("SET NX PX in a script", "a lease in one script, no token", "evalsha", false,
            (r, k, v) -> r.evalsha(leaseOnly, ScriptOutputType.STATUS, new String[] {k}, v, prefix(v), TTL_MS), "OK"),
        new Variant("ACQUIRE counter, no ACL check", "the fencing token (GET, SET of the counter)", "evalsha", false,
            acquire(acquireNoAcl, "counter"), GRANTED),
        new Variant("ACQUIRE clock, no ACL check", "the clock floor (TIME)", "evalsha", false,
            acquire(acquireNoAcl, "clock"), GRANTED),
        new Variant("ACQUIRE", "the ACL pre-check: the script as shipped, clock mode (the default)", "evalsha", false,
            acquire(acquire, "clock"), GRANTED),
        new Variant("RELEASE", "the script as shipped, on its own value", "evalsha", true,
            (r, k, v) -> r.evalsha(release, ScriptOutputType.INTEGER, new String[] {k}, v), 1L),
        new Variant("RENEW", "the script as shipped, on its own value", "evalsha", true,
            (r, k, v) -> r.evalsha(renew, ScriptOutputType.MULTI, new String[] {k, k + ":fence"}, retention("clock"), v,
                TTL_MS), List.of(1L)));
  }

  private static CallMaker acquire(String sha, String mode) {
    return (r, k, v) -> r.evalsha(sha, ScriptOutputType.MULTI, new String[] {k, k + ":fence"}, v, prefix(v), TTL_MS, mode,
        retention(mode));
  }

  /** The counter's retention the adapter sends in fence mode {@code mode}, by default. */
  private static String retention(String mode) {
    return mode.equals(FenceMode.CLOCK_FLOOR.wire()) ? Long.toString(RedisLeaseConfig.DEFAULT_COUNTER_RETENTION.toMillis()) : "0";
  }

  /** The owner-token prefix of a value {@code token:op}. */
  private static String prefix(String value) {
    return value.substring(0, value.indexOf(':') + 1);
  }

  /** One round of one variant: µs per call of its top-level command. */
  private static double run(StatefulRedisConnection<String, String> connection, RedisAsyncCommands<String, String> redis,
      Variant v, int round, int calls) {
    IntFunction<String> key = i -> "cost:{" + v.name().replace(' ', '-') + ":" + round + ":" + i + "}";
    IntFunction<String> value = i -> "token" + round + ":op-" + i;
    if (v.preset()) {
      awaitAll(calls, i -> redis.set(key.apply(i), value.apply(i), SetArgs.Builder.px(Long.parseLong(TTL_MS))));
    }
    connection.sync().configResetstat();
    List<RedisFuture<?>> replies = awaitAll(calls, i -> v.call().send(redis, key.apply(i), value.apply(i)));
    String stats = connection.sync().info("commandstats");
    for (RedisFuture<?> reply : replies) {
      Object got = reply.toCompletableFuture().join();
      boolean ok = v.expected() == GRANTED ? got instanceof List<?> l && Long.valueOf(1).equals(l.get(0))
          : v.expected().equals(got);
      if (!ok) {
        throw new IllegalStateException("script cost: " + v.name() + " answered " + got + ", not " + v.expected());
      }
    }
    return CommandStats.usecPerCall(stats, v.command());
  }

  private static List<RedisFuture<?>> awaitAll(int calls, IntFunction<RedisFuture<?>> send) {
    List<RedisFuture<?>> futures = new ArrayList<>(calls);
    for (int i = 0; i < calls; i++) {
      futures.add(send.apply(i));
    }
    if (!LettuceFutures.awaitAll(Duration.ofSeconds(60), futures.toArray(RedisFuture[]::new))) {
      throw new IllegalStateException("script cost: calls did not complete in 60 s");
    }
    for (RedisFuture<?> f : futures) {
      if (f.getError() != null) {
        throw new IllegalStateException("script cost: a call failed: " + f.getError());
      }
    }
    return futures;
  }
}
