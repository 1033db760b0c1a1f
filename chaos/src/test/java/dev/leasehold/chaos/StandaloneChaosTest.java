package dev.leasehold.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Chaos on one real redis-server started by the test on a free loopback port: faults through an
 * in-process proxy, SIGSTOP/SIGCONT, kill -9 with an empty restart, and paused clients. Three
 * workers contend for one resource and write PostgreSQL through a fenced store and an unfenced
 * control. Every assertion is on counts from the recorded history.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 60)
class StandaloneChaosTest {
  static final Duration RUN = Duration.ofSeconds(6);

  @AfterAll
  static void printSummary() {
    Summary.print();
  }

  /** What must hold wherever Redis keeps its data: the adapter's own invariants. */
  static void assertAdapterInvariants(Checker.Counts c) {
    assertEquals(0, c.twoActivePairs(), "two handles believed ACTIVE at once: " + c.findings());
    assertEquals(0, c.activePastLease(), "a handle was ACTIVE past the server lease: " + c.findings());
    assertEquals(0, c.duplicateTokens(), "a token was issued twice: " + c.findings());
    assertFencingAndHonesty(c);
  }

  /** What must hold under every fault, even one that loses the server's data. */
  static void assertFencingAndHonesty(Checker.Counts c) {
    assertEquals(0, c.fencedStaleAcceptedClaimedFenced(), "the fenced store accepted a stale write: " + c.findings());
    assertEquals(0, c.certaintyContradictions(), "an outcome claimed more certainty than it had: " + c.findings());
    assertEquals(0, c.stateOutcomeDisagreements(), "an outcome contradicted state(): " + c.findings());
    assertTrue(c.grants() >= 3, "the workload made too little progress: " + c.grants() + " grants");
    assertTrue(c.effectsAttempted() > 0, "no effect was attempted");
    assertTrue(c.samples() > 50, "the sampler saw too little: " + c.samples());
  }

  static long outcomes(History h, String op, String outcome) {
    return h.of(History.Complete.class).stream()
        .filter(c -> c.op().equals(op) || op.equals("*"))
        .filter(c -> c.outcome().startsWith(outcome))
        .count();
  }

  static boolean before(History h, long endAt) {
    return h.now() < endAt;
  }

  static void sleep(long ms) {
    Worker.pause(Duration.ofMillis(ms));
  }

  @Test
  @Order(1)
  void baseline() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-baseline")) {
      ChaosRun.Result r = ChaosRun.run(ChaosRun.standalone("baseline", "no faults: three workers contend",
          redis::uri, redis.uri(), ChaosRun.defaultPlan(), RUN), h -> { });
      assertAdapterInvariants(r.counts());
      assertEquals(0, r.counts().controlStaleAccepted(), "without faults or pauses nothing is stale: " + r.counts().findings());
    }
  }

  @Test
  @Order(2)
  void clientPause() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-client-pause")) {
      Worker.Plan plan = ChaosRun.defaultPlan();
      // Every worker pauses before the first effect of every third lease it gets.
      plan = new Worker.Plan(plan.ttl(), plan.waitTimeout(), plan.effectsPerLease(), plan.work(), plan.minBudget(),
          plan.maxOps(), g -> g % 3 == 2, Duration.ofMillis(400), false);
      ChaosRun.Result r = ChaosRun.run(ChaosRun.standalone("client-pause",
          "workers stop between their last check and their effect for their remaining budget + 400 ms",
          redis::uri, redis.uri(), plan, Duration.ofSeconds(8)), h -> { });
      Checker.Counts c = r.counts();
      assertAdapterInvariants(c);
      assertTrue(c.faults() >= 2, "the pauses did not happen: " + c.faults());
      // The control proves the checker sees stale writes; the fenced store refused the same ones.
      assertTrue(c.controlStaleAccepted() > 0, "the control accepted no stale write: the checker is blind");
      assertTrue(c.fencedRejected() >= c.controlStaleAccepted(),
          "the fenced store should reject at least the writes that were stale on the control");
    }
  }

  @Test
  @Order(3)
  void proxyLatency() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-proxy-latency"); TcpProxy proxy = TcpProxy.start("latency", redis.port())) {
      ChaosRun.Result r = ChaosRun.run(ChaosRun.standalone("proxy-latency",
          "every chunk delayed 20-120 ms both ways in waves (a 120 ms round trip is half the command timeout)",
          () -> RedisURI.create("redis://127.0.0.1:" + proxy.port()), redis.uri(), ChaosRun.defaultPlan(), RUN),
          h -> {
            long endAt = h.now() + RUN.toNanos() - 1_000_000_000L;
            long[] waves = {20, 60, 120, 40};
            for (int i = 0; before(h, endAt); i++) {
              long ms = waves[i % waves.length];
              long start = h.now();
              proxy.latency(ms);
              sleep(700);
              proxy.latency(0);
              h.fault(start, "latency", ms + " ms per chunk each way");
              sleep(300);
            }
          });
      assertAdapterInvariants(r.counts());
    }
  }

  @Test
  @Order(4)
  void proxyDelayedReplies() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-proxy-delay"); TcpProxy proxy = TcpProxy.start("delay", redis.port())) {
      ChaosRun.Result r = ChaosRun.run(ChaosRun.standalone("proxy-delayed-replies",
          "replies held 400 ms (beyond the 250 ms command timeout) for 500 ms at a time: applied, reply late",
          () -> RedisURI.create("redis://127.0.0.1:" + proxy.port()), redis.uri(), ChaosRun.defaultPlan(), RUN),
          h -> {
            long endAt = h.now() + RUN.toNanos() - 1_000_000_000L;
            sleep(500);
            while (before(h, endAt)) {
              long start = h.now();
              proxy.delayReplies(400);
              sleep(500);
              proxy.delayReplies(0);
              h.fault(start, "delay-replies", "replies held 400 ms");
              sleep(900);
            }
          });
      assertAdapterInvariants(r.counts());
      assertTrue(outcomes(r.history(), "*", "Indeterminate") > 0, "the delayed replies never made an outcome ambiguous");
    }
  }

  @Test
  @Order(5)
  void proxyDroppedReplies() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-proxy-drop"); TcpProxy proxy = TcpProxy.start("drop", redis.port())) {
      ChaosRun.Result r = ChaosRun.run(ChaosRun.standalone("proxy-dropped-replies",
          "replies discarded for 400 ms (commands applied, answers lost), then the connections are reset",
          () -> RedisURI.create("redis://127.0.0.1:" + proxy.port()), redis.uri(), ChaosRun.defaultPlan(), RUN),
          h -> {
            long endAt = h.now() + RUN.toNanos() - 1_000_000_000L;
            sleep(500);
            while (before(h, endAt)) {
              long start = h.now();
              proxy.dropReplies(true);
              sleep(400);
              proxy.dropReplies(false);
              h.fault(start, "drop-replies", "replies discarded, then poisoned connections reset");
              sleep(900);
            }
          });
      assertAdapterInvariants(r.counts());
      assertTrue(outcomes(r.history(), "*", "Indeterminate") > 0, "no reply was lost");
    }
  }

  @Test
  @Order(6)
  void proxyBlackhole() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-proxy-blackhole"); TcpProxy proxy = TcpProxy.start("blackhole", redis.port())) {
      ChaosRun.Result r = ChaosRun.run(ChaosRun.standalone("proxy-blackhole",
          "nothing forwarded either way for 700 ms, then the held requests arrive late (a delayed request applied"
              + " after its client gave up)",
          () -> RedisURI.create("redis://127.0.0.1:" + proxy.port()), redis.uri(), ChaosRun.defaultPlan(), RUN),
          h -> {
            long endAt = h.now() + RUN.toNanos() - 1_000_000_000L;
            sleep(500);
            while (before(h, endAt)) {
              long start = h.now();
              proxy.blackhole(true);
              sleep(700);
              proxy.blackhole(false);
              h.fault(start, "blackhole", "no bytes either way; held bytes delivered at the end");
              sleep(900);
            }
          });
      assertAdapterInvariants(r.counts());
      assertTrue(outcomes(r.history(), "*", "Indeterminate") > 0, "the blackhole never made an outcome ambiguous");
    }
  }

  @Test
  @Order(7)
  void proxyReset() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-proxy-reset"); TcpProxy proxy = TcpProxy.start("reset", redis.port())) {
      ChaosRun.Result r = ChaosRun.run(ChaosRun.standalone("proxy-reset",
          "every connection reset (RST) every 600 ms, with 30 ms latency so some resets hit commands in flight",
          () -> RedisURI.create("redis://127.0.0.1:" + proxy.port()), redis.uri(), ChaosRun.defaultPlan(), RUN),
          h -> {
            long endAt = h.now() + RUN.toNanos() - 1_000_000_000L;
            proxy.latency(30);
            while (before(h, endAt)) {
              sleep(600);
              long start = h.now();
              int n = proxy.resetAll();
              h.fault(start, "reset", n + " connections reset");
            }
            proxy.latency(0);
          });
      assertAdapterInvariants(r.counts());
      assertTrue(r.counts().faults() >= 5, "too few resets");
    }
  }

  @Test
  @Order(8)
  void serverPause() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-server-pause")) {
      ChaosRun.Result r = ChaosRun.run(ChaosRun.standalone("server-sigstop",
          "redis-server SIGSTOPped for 1.5 s (longer than the 1 s lease), then SIGCONT; twice",
          redis::uri, redis.uri(), ChaosRun.defaultPlan(), Duration.ofSeconds(8)),
          h -> {
            for (int i = 0; i < 2; i++) {
              sleep(1500);
              long start = h.now();
              redis.pause();
              try {
                sleep(1500);
              } finally {
                redis.resume();
              }
              h.fault(start, "sigstop", "server stopped 1.5 s");
            }
          });
      assertAdapterInvariants(r.counts());
      assertTrue(outcomes(r.history(), "*", "Indeterminate") > 0, "the pause never made an outcome ambiguous");
    }
  }

  @Test
  @Order(9)
  void serverKillAndEmptyRestart() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-kill-restart")) {
      ChaosRun.Result r = ChaosRun.run(ChaosRun.standalone("server-kill9-restart",
          "kill -9 of redis-server, restarted empty on the same port 300 ms later (no keys, no scripts); twice",
          redis::uri, redis.uri(), ChaosRun.defaultPlan(), Duration.ofSeconds(8)), killRestart(redis));
      Checker.Counts c = r.counts();
      // The restart loses the lease keys: handles can be ACTIVE past a lease that is gone. That is
      // Redis without persistence, counted and shown, not asserted away. Fencing must still hold.
      assertFencingAndHonesty(c);
      assertEquals(0, c.duplicateTokens(), "CLOCK_FLOOR must not issue a token twice across a restart: " + c.findings());
      assertTrue(c.faults() >= 2, "the kills did not happen");
    }
  }

  @Test
  @Order(10)
  void serverKillAndEmptyRestartWithCounter() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-kill-restart-counter")) {
      ChaosRun.Setup setup = ChaosRun.standalone("server-kill9-restart-counter",
          "as server-kill9-restart, with FenceMode.COUNTER: the counter restarts at 1",
          redis::uri, redis.uri(), ChaosRun.defaultPlan(), Duration.ofSeconds(8));
      setup = new ChaosRun.Setup(setup.scenario(), setup.description(), setup.clientUri(), setup.sampleUri(),
          setup.serverLabel(), setup.workers(), setup.plan(), setup.duration(), FenceMode.COUNTER, 0,
          setup.replicaAckTimeout(), setup.driftBudget());
      ChaosRun.Result r = ChaosRun.run(setup, killRestart(redis));
      Checker.Counts c = r.counts();
      assertFencingAndHonesty(c);
      // The reset counter re-issues low tokens: the fenced store refuses the new holders (safe, not live).
      assertTrue(c.duplicateTokens() > 0, "the counter did not go back: " + c.findings());
      assertTrue(c.fencedRejected() > 0, "the fenced store accepted re-issued low tokens");
    }
  }

  static ChaosRun.FaultScript killRestart(RedisProcess redis) {
    return h -> {
      for (int i = 0; i < 2; i++) {
        sleep(2000);
        long start = h.now();
        redis.kill();
        sleep(300);
        redis.restart();
        h.fault(start, "kill9-restart", "kill -9, restarted empty after 300 ms (pid " + redis.pid() + ")");
      }
    };
  }
}
