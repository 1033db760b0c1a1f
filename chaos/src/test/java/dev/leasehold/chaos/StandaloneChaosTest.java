package dev.leasehold.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.redis.RedisProcess;
import dev.leasehold.testkit.redis.TcpProxy;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Chaos on one real redis-server started by the test on a free loopback port: faults through an
 * in-process proxy, SIGSTOP/SIGCONT, kill -9 with an empty restart, and paused clients. Three
 * workers contend for one resource and write PostgreSQL through a fenced store and an unfenced
 * control. Every assertion is on counts from the recorded history. One row of {@link #SCENARIOS}
 * per scenario, run in that order.
 */
@Timeout(value = 60)
class StandaloneChaosTest {
  static final Duration RUN = Duration.ofSeconds(6);

  /** What a fault script works on: the server, the proxy in front of it (null when direct), the run's length. */
  record Target(RedisProcess redis, TcpProxy proxy, Duration duration) {}

  /** The fault script of a scenario, given its target. */
  @FunctionalInterface
  interface Fault {
    ChaosRun.FaultScript on(Target t);
  }

  /** How the workers run: their plan, the run's length, the fencing mode. */
  record Settings(Worker.Plan plan, Duration duration, FenceMode fenceMode) {
    static Settings of(Duration duration) {
      return new Settings(ChaosRun.defaultPlan(), duration, FenceMode.CLOCK_FLOOR);
    }

    Settings with(FenceMode mode) {
      return new Settings(plan, duration, mode);
    }
  }

  /**
   * One scenario: its name (the JUnit display name, the summary row, the history and timeline
   * files), what it does, whether the workers go through the proxy, its fault, settings and what
   * must hold afterwards.
   */
  record Scenario(String name, String description, boolean proxied, Fault fault, Settings settings,
      Consumer<ChaosRun.Result> expect) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final boolean DIRECT = false;
  static final boolean PROXIED = true;
  static final Fault NONE = t -> h -> { };
  static final Fault KILL_RESTART = twice(2000, "kill9-restart", StandaloneChaosTest::killRestart);
  static final long[] LATENCY_WAVES = {20, 60, 120, 40};
  static final Settings SHORT = Settings.of(RUN);
  static final Settings LONG = Settings.of(Duration.ofSeconds(8));

  static final List<Scenario> SCENARIOS = List.of(
      new Scenario("baseline", "no faults: three workers contend", DIRECT, NONE, SHORT,
          adapterInvariants().andThen(r -> assertEquals(0, r.counts().controlStaleAccepted(),
              "without faults or pauses nothing is stale: " + r.counts().findings()))),
      new Scenario("client-pause",
          "workers stop between their last check and their effect for their remaining budget + 400 ms", DIRECT, NONE,
          new Settings(pausingEveryThirdLease(), Duration.ofSeconds(8), FenceMode.CLOCK_FLOOR),
          adapterInvariants().andThen(r -> {
            Checker.Counts c = r.counts();
            assertTrue(c.faults() >= 2, "the pauses did not happen: " + c.faults());
            // The control proves the checker sees stale writes; the fenced store refused the same ones.
            assertTrue(c.controlStaleAccepted() > 0, "the control accepted no stale write: the checker is blind");
            assertTrue(c.fencedRejected() >= c.controlStaleAccepted(),
                "the fenced store should reject at least the writes that were stale on the control");
          })),
      new Scenario("proxy-latency",
          "every chunk delayed 20-120 ms both ways in waves (a 120 ms round trip is half the command timeout)", PROXIED,
          waves(0, 700, 300, "latency", (p, i) -> {
            p.latency(LATENCY_WAVES[i % LATENCY_WAVES.length]);
            return LATENCY_WAVES[i % LATENCY_WAVES.length] + " ms per chunk each way";
          }, p -> p.latency(0)), SHORT, adapterInvariants()),
      new Scenario("proxy-delayed-replies",
          "replies held 400 ms (beyond the 250 ms command timeout) for 500 ms at a time: applied, reply late", PROXIED,
          waves(500, 500, 900, "delay-replies", (p, i) -> {
            p.delayReplies(400);
            return "replies held 400 ms";
          }, p -> p.delayReplies(0)), SHORT,
          adapterInvariants().andThen(someIndeterminate("the delayed replies never made an outcome ambiguous"))),
      new Scenario("proxy-dropped-replies",
          "replies discarded for 400 ms (commands applied, answers lost), then the connections are reset", PROXIED,
          waves(500, 400, 900, "drop-replies", (p, i) -> {
            p.dropReplies(true);
            return "replies discarded, then poisoned connections reset";
          }, p -> p.dropReplies(false)), SHORT, adapterInvariants().andThen(someIndeterminate("no reply was lost"))),
      new Scenario("proxy-blackhole", "nothing forwarded either way for 700 ms, then the held requests arrive late"
          + " (a delayed request applied after its client gave up)", PROXIED,
          waves(500, 700, 900, "blackhole", (p, i) -> {
            p.blackhole(true);
            return "no bytes either way; held bytes delivered at the end";
          }, p -> p.blackhole(false)), SHORT,
          adapterInvariants().andThen(someIndeterminate("the blackhole never made an outcome ambiguous"))),
      new Scenario("proxy-reset",
          "every connection reset (RST) every 600 ms, with 30 ms latency so some resets hit commands in flight", PROXIED,
          StandaloneChaosTest::resets, SHORT,
          adapterInvariants().andThen(r -> assertTrue(r.counts().faults() >= 5, "too few resets"))),
      new Scenario("server-sigstop", "redis-server SIGSTOPped for 1.5 s (longer than the 1 s lease), then SIGCONT; twice",
          DIRECT, twice(1500, "sigstop", StandaloneChaosTest::sigstop), LONG,
          adapterInvariants().andThen(someIndeterminate("the pause never made an outcome ambiguous"))),
      // The restart loses the lease keys: handles can be ACTIVE past a lease that is gone. That is
      // Redis without persistence, counted and shown, not asserted away. Fencing must still hold.
      new Scenario("server-kill9-restart",
          "kill -9 of redis-server, restarted empty on the same port 300 ms later (no keys, no scripts); twice", DIRECT,
          KILL_RESTART, LONG, fencingAndHonesty().andThen(r -> {
            Checker.Counts c = r.counts();
            assertEquals(0, c.duplicateTokens(),
                "CLOCK_FLOOR must not issue a token twice across a restart: " + c.findings());
            assertTrue(c.faults() >= 2, "the kills did not happen");
          })),
      new Scenario("server-kill9-restart-counter",
          "as server-kill9-restart, with FenceMode.COUNTER: the counter restarts at 1", DIRECT,
          KILL_RESTART, LONG.with(FenceMode.COUNTER),
          fencingAndHonesty().andThen(r -> {
            Checker.Counts c = r.counts();
            // The reset counter re-issues low tokens: the fenced store refuses the new holders (safe, not live).
            assertTrue(c.duplicateTokens() > 0, "the counter did not go back: " + c.findings());
            assertTrue(c.fencedRejected() > 0, "the fenced store accepted re-issued low tokens");
          })));

  static List<Scenario> scenarios() {
    return SCENARIOS;
  }

  @AfterAll
  static void printSummary() {
    Summary.print();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void scenario(Scenario s) throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-" + s.name());
         TcpProxy proxy = s.proxied() ? TcpProxy.start(s.name(), redis.port()) : null) {
      Supplier<RedisURI> clientUri = proxy == null ? redis::uri : () -> RedisURI.create("redis://127.0.0.1:" + proxy.port());
      ChaosRun.Setup setup = ChaosRun.standalone(s.name(), s.description(), clientUri, redis.uri(), s.settings().plan(),
          s.settings().duration());
      ChaosRun.FaultScript faults = s.fault().on(new Target(redis, proxy, s.settings().duration()));
      s.expect().accept(ChaosRun.run(setup.withFenceMode(s.settings().fenceMode()), faults));
    }
  }

  /** The default plan, but every worker pauses before the first effect of every third lease it gets. */
  static Worker.Plan pausingEveryThirdLease() {
    Worker.Plan p = ChaosRun.defaultPlan();
    return new Worker.Plan(p.ttl(), p.waitTimeout(), p.effectsPerLease(), p.work(), p.minBudget(), p.maxOps(),
        g -> g % 3 == 2, Duration.ofMillis(400), false);
  }

  /** What must hold wherever Redis keeps its data: the adapter's own invariants. */
  static Consumer<ChaosRun.Result> adapterInvariants() {
    return r -> assertAdapterInvariants(r.counts());
  }

  static void assertAdapterInvariants(Checker.Counts c) {
    assertEquals(0, c.twoActivePairs(), "two handles believed ACTIVE at once: " + c.findings());
    assertEquals(0, c.activePastLease(), "a handle was ACTIVE past the server lease: " + c.findings());
    assertEquals(0, c.duplicateTokens(), "a token was issued twice: " + c.findings());
    assertFencingAndHonesty(c);
  }

  /** What must hold under every fault, even one that loses the server's data. */
  static Consumer<ChaosRun.Result> fencingAndHonesty() {
    return r -> assertFencingAndHonesty(r.counts());
  }

  static void assertFencingAndHonesty(Checker.Counts c) {
    assertEquals(0, c.fencedStaleAcceptedClaimedFenced(), "the fenced store accepted a stale write: " + c.findings());
    assertEquals(0, c.certaintyContradictions(), "an outcome claimed more certainty than it had: " + c.findings());
    assertEquals(0, c.stateOutcomeDisagreements(), "an outcome contradicted state(): " + c.findings());
    assertTrue(c.grants() >= 3, "the workload made too little progress: " + c.grants() + " grants");
    assertTrue(c.effectsAttempted() > 0, "no effect was attempted");
    assertTrue(c.samples() > 50, "the sampler saw too little: " + c.samples());
  }

  /** Some call (of any operation) came back Indeterminate: the fault did make an outcome ambiguous. */
  static Consumer<ChaosRun.Result> someIndeterminate(String otherwise) {
    return r -> assertTrue(r.history().of(History.Complete.class).stream()
        .anyMatch(c -> c.outcome().startsWith("Indeterminate")), otherwise);
  }

  static void sleep(long ms) {
    Worker.pause(Duration.ofMillis(ms));
  }

  /**
   * A proxy fault in waves until 1 s before the run ends: the first after {@code firstMs}, each on
   * for {@code onMs}, then off for {@code offMs}.
   */
  static Fault waves(long firstMs, long onMs, long offMs, String name, Wave on, Consumer<TcpProxy> off) {
    return t -> h -> {
      long endAt = h.now() + t.duration().toNanos() - 1_000_000_000L;
      sleep(firstMs);
      for (int i = 0; h.now() < endAt; i++) {
        long start = h.now();
        String detail = on.start(t.proxy(), i);
        sleep(onMs);
        off.accept(t.proxy());
        h.fault(start, name, detail);
        sleep(offMs);
      }
    };
  }

  /** Starts wave {@code i} of a proxy fault; returns what it does, for the history. */
  @FunctionalInterface
  interface Wave {
    String start(TcpProxy proxy, int i);
  }

  static ChaosRun.FaultScript resets(Target t) {
    return h -> {
      long endAt = h.now() + t.duration().toNanos() - 1_000_000_000L;
      t.proxy().latency(30);
      while (h.now() < endAt) {
        sleep(600);
        long start = h.now();
        int n = t.proxy().resetAll();
        h.fault(start, "reset", n + " connections reset");
      }
      t.proxy().latency(0);
    };
  }

  /** A server fault done twice, {@code everyMs} after the start and after the last one. */
  static Fault twice(long everyMs, String name, ServerFault fault) {
    return t -> h -> {
      for (int i = 0; i < 2; i++) {
        sleep(everyMs);
        long start = h.now();
        String detail = fault.run(t.redis());
        h.fault(start, name, detail);
      }
    };
  }

  /** Does one server fault and undoes it; returns what it did, for the history. */
  @FunctionalInterface
  interface ServerFault {
    String run(RedisProcess redis);
  }

  static String sigstop(RedisProcess redis) {
    redis.pause();
    try {
      sleep(1500);
    } finally {
      redis.resume();
    }
    return "server stopped 1.5 s";
  }

  static String killRestart(RedisProcess redis) {
    redis.kill();
    sleep(300);
    redis.restart();
    return "kill -9, restarted empty after 300 ms (pid " + redis.pid() + ")";
  }
}
