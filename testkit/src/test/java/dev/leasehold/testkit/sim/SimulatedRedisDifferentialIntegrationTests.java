package dev.leasehold.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.redis.RedisBinary;
import dev.leasehold.testkit.redis.RedisProcess;
import dev.leasehold.testkit.redis.RedisServer;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulated server is faithful: the same seeded random sequences of commands, run against a
 * {@link SimulatedRedis} and against a real redis-server started here, get the same replies. A
 * sequence mixes the four scripts (both fence modes, own and foreign values, replays of earlier
 * calls), outside commands on the lease key and the counter (DEL, SET, PERSIST, HSET, PEXPIRE), WAIT,
 * SCRIPT FLUSH and time passing; after every step both servers are read (TYPE, GET, PTTL of both
 * keys) and those replies are compared too. See {@link DifferentialRun} for how replies that
 * depend on the clock are compared.
 *
 * <p>It runs on the redis-server on PATH (Redis 7.0 here) and on the one embedded-redis bundles
 * (6.2), which runs the scripts without their {@code #!lua} line, as the lettuce gateway sends them
 * to a server before 7. The figures go to {@code target/differential/}. Sizes:
 * {@code -Ddifferential.sequences} (30) of {@code -Ddifferential.steps} (40) steps from
 * {@code -Ddifferential.seed}.
 */
class SimulatedRedisDifferentialIntegrationTests {
  private static final int SEQUENCES = Integer.getInteger("differential.sequences", 30);
  private static final int STEPS = Integer.getInteger("differential.steps", 40);
  private static final long SEED = Long.getLong("differential.seed", 20_261_213L);

  @Test
  void theSimulationAnswersAsTheRedisOnPath() throws IOException {
    // A real-server test never skips: without Redis 7 on PATH (.ci/run installs Debian's) it fails.
    Path binary = RedisBinary.onPath()
        .orElseThrow(() -> new AssertionError("no redis-server on PATH: install one (Debian: apt-get install redis-server)"));
    try (RedisProcess redis = RedisProcess.startWith(binary, "differential-path")) {
      compare(redis.uri(), "path");
    }
  }

  @Test
  void theSimulationAnswersAsTheBundledRedis62() throws IOException {
    RedisBinary.bundled().orElseThrow(() -> new AssertionError("embedded-redis bundles no redis-server for this platform"));
    try (RedisServer redis = RedisServer.startBundled("differential-bundled")) {
      compare(redis.uri(), "bundled");
    }
  }

  private static void compare(RedisURI uri, String name) throws IOException {
    try (RespClient client = new RespClient(uri.getPort())) {
      Object info = client.send(List.of("INFO", "server"));
      String version = version((String) info);
      int major = Integer.parseInt(version.substring(0, version.indexOf('.')));
      DifferentialRun.Totals totals = new DifferentialRun.Totals();
      List<String> mismatches = new ArrayList<>();
      for (int i = 0; i < SEQUENCES && mismatches.isEmpty(); i++) {
        client.send(List.of("FLUSHALL"));
        client.send(List.of("SCRIPT", "FLUSH"));
        new DifferentialRun(client::send, major, SEED + i, totals, mismatches).run(STEPS);
      }
      String report = "Redis " + version + " (" + name + "): " + totals.summary() + ", mismatches " + mismatches.size();
      System.out.println(report);
      Path out = Path.of("target", "differential");
      Files.createDirectories(out);
      Files.writeString(out.resolve(name + ".txt"), report + "\n" + String.join("\n", mismatches) + "\n");
      assertEquals(List.of(), mismatches, report);
      assertTrue(totals.inconclusive * 5 <= totals.sequences, "too many sequences cut short by timing: " + report);
      assertTrue(totals.scriptCalls > 0 && totals.noScript > 0 && totals.errors > 0, report);
    }
  }

  private static String version(String info) {
    int at = info.indexOf("redis_version:");
    return info.substring(at + "redis_version:".length(), info.indexOf('\n', at)).trim();
  }
}
