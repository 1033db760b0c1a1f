package dev.leasehold.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.LettuceLeaseGateway;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One round trip per operation, counted by the server: N acquire+renew+release cycles through the
 * adapter are exactly 3N {@code EVALSHA} calls in {@code INFO commandstats}, and every other command
 * the server ran is either the test's own bookkeeping ({@code CONFIG RESETSTAT}, {@code INFO}) or a
 * command the scripts themselves issue, in exactly the number the scripts issue it. A client-side
 * extra (a GET, a PTTL, a second try) would change one of those counts.
 */
class OneRoundTripPerOperationIntegrationTests {
  static final int N = 200;
  static final Duration TTL = Duration.ofSeconds(30);
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
  /** What the test itself sends around the measured cycles. */
  static final Set<String> BOOKKEEPING = Set.of("config|resetstat", "info");

  static RedisProcess redis;
  static RedisClient statsClient;
  static StatefulRedisConnection<String, String> statsConnection;
  static RedisCommands<String, String> stats;

  LettuceLeaseGateway gateway;

  @BeforeAll
  static void startServer() {
    redis = RedisProcess.start("round-trips");
    statsClient = RedisClient.create(redis.uri());
    statsConnection = statsClient.connect();
    stats = statsConnection.sync();
  }

  @AfterAll
  static void stopServer() {
    statsConnection.close();
    statsClient.shutdown();
    redis.close();
  }

  @BeforeEach
  void connect() {
    stats.scriptFlush();
    gateway = LettuceLeaseGateway.connect(redis.uri(), COMMAND_TIMEOUT);
  }

  @AfterEach
  void closeGateway() {
    gateway.close();
  }

  @Test
  void counterMode_eachOperationIsOneEvalsha_andTheScriptsRunExactlyTheirOwnCommands() {
    RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(gateway).fenceMode(FenceMode.COUNTER).build();
    cycles(adapter, 1); // caches the scripts (NOSCRIPT, then EVAL of the text) outside the count
    stats.configResetstat();

    cycles(adapter, N);

    Map<String, Long> calls = commandCalls();
    assertEquals(3L * N, calls.remove("evalsha"), "one EVALSHA per acquire, renew and release: " + calls);
    // ACQUIRE on a free key: GET (counter), SET NX PX, SET (counter). RENEW: GET, PEXPIRE. RELEASE: GET, DEL, PUBLISH.
    Map<String, Long> scripted = new TreeMap<>(Map.of("get", 3L * N, "set", 2L * N, "pexpire", (long) N,
        "del", (long) N, "publish", (long) N));
    BOOKKEEPING.forEach(calls::remove);
    assertEquals(scripted, calls, "nothing but the scripts' own commands ran besides EVALSHA");
  }

  @Test
  void clockFloorMode_eachOperationIsOneEvalsha_andOnlyScriptCommandsRun() {
    RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(gateway).build(); // the default, CLOCK_FLOOR
    cycles(adapter, 1);
    stats.configResetstat();

    cycles(adapter, N);

    Map<String, Long> calls = commandCalls();
    assertEquals(3L * N, calls.remove("evalsha"), "one EVALSHA per acquire, renew and release: " + calls);
    BOOKKEEPING.forEach(calls::remove);
    // ACQUIRE on a free key: GET (counter), SET NX PX, TIME, SET (counter) PX; RENEW as above and a
    // PEXPIRE of the counter (its retention); RELEASE as above.
    assertEquals(new TreeMap<>(Map.of("get", 3L * N, "set", 2L * N, "time", (long) N, "pexpire", 2L * N,
        "del", (long) N, "publish", (long) N)), calls,
        "nothing but the scripts' own commands ran besides EVALSHA");
  }

  @Test
  void freshServer_eachScriptRunsByItsTextOnce() {
    RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(gateway).fenceMode(FenceMode.COUNTER).build();
    stats.configResetstat();

    cycles(adapter, 2);

    Map<String, String> evalsha = commandStats().get("evalsha");
    // The first use of each of the three scripts: EVALSHA (NOSCRIPT), then EVAL of its text, which
    // runs it and caches it; every later use is one EVALSHA.
    assertEquals("6", evalsha.get("calls"), "3 NOSCRIPT tries and the 3 later operations: " + evalsha);
    assertEquals("3", evalsha.get("failed_calls"), "one NOSCRIPT per script: " + evalsha);
    assertEquals(3L, commandCalls().get("eval"), "each script runs by its text once");
    assertNull(commandCalls().get("script|load"), "no SCRIPT LOAD: " + commandCalls());
  }

  /** N acquire+renew+release cycles on one resource, each checked. */
  static void cycles(RedisLeaseAdapter adapter, int n) {
    String digest = BenchRedis.newDigest();
    for (int i = 0; i < n; i++) {
      AcquireOutcome acquired = adapter.tryAcquire(
          LeaseRequest.once("round-trips", digest, TTL, adapter.newAttempt("op-" + i)));
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, acquired).handle();
      assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(TTL));
      assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
    }
  }

  /** {@code calls} per command name, from {@code INFO commandstats}. */
  static Map<String, Long> commandCalls() {
    Map<String, Long> calls = new TreeMap<>();
    commandStats().forEach((name, fields) -> calls.put(name, Long.parseLong(fields.get("calls"))));
    return calls;
  }

  /** {@code cmdstat_<name>:calls=..,usec=..,...} parsed into name -> field -> value. */
  static Map<String, Map<String, String>> commandStats() {
    return CommandStats.parse(OneRoundTripPerOperationIntegrationTests.stats.info("commandstats"));
  }
}
