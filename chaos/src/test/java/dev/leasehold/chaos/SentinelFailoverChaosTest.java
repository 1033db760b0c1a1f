package dev.leasehold.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.RedisLeaseAdapter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Sentinel failover on real processes (primary, replica, three sentinels on loopback): forced
 * with {@code SENTINEL FAILOVER} and by {@code kill -9} under the contended workload, and the
 * failover that loses a write: the replication link is cut, A is granted a lease on the primary
 * only, the primary is killed, the replica is promoted without A's lease and counter increment,
 * and B is granted the same resource. What happens to the fencing token is the point, for each
 * durability setting the adapter offers.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 90)
class SentinelFailoverChaosTest {
  /** One line of the failover-with-loss table. */
  record LossRow(String config, long tokenA, String guaranteeA, long tokenB, String guaranteeB, String lateWriteFenced,
      String lateWriteControl, Checker.Counts counts) {}

  private static final List<LossRow> LOSS = new ArrayList<>();

  @AfterAll
  static void printSummary() throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("| setting | A's token (lost grant) | A's guarantee | B's token (after failover) | B's guarantee"
        + " | A's late write, fenced store | A's late write, control | two ACTIVE | fenced stale accepted, claimed FENCED"
        + " | fenced stale accepted, claimed EFFICIENCY_ONLY |\n");
    sb.append("|---|--:|---|--:|---|---|---|--:|--:|--:|\n");
    for (LossRow r : LOSS) {
      sb.append("| ").append(r.config()).append(" | ").append(r.tokenA()).append(" | ").append(r.guaranteeA())
          .append(" | ").append(r.tokenB()).append(" | ").append(r.guaranteeB()).append(" | ").append(r.lateWriteFenced())
          .append(" | ").append(r.lateWriteControl()).append(" | ").append(r.counts().twoActivePairs())
          .append(" | ").append(r.counts().fencedStaleAcceptedClaimedFenced())
          .append(" | ").append(r.counts().fencedStaleAcceptedClaimedEfficiency()).append(" |\n");
    }
    Files.createDirectories(ChaosRun.OUT);
    Files.writeString(ChaosRun.OUT.resolve("failover-with-loss.md"), sb.toString(), StandardCharsets.UTF_8);
    System.out.println("\nFailover with a lost write (target/chaos/failover-with-loss.md):\n" + sb);
    Summary.print();
  }

  @Test
  @Order(1)
  void forcedFailoverUnderLoad() throws Exception {
    try (SentinelCluster cluster = SentinelCluster.start("forced", false)) {
      assemblyWorksThroughSentinel(cluster);
      AtomicInteger primary = new AtomicInteger(cluster.primary.port());
      ChaosRun.Setup setup = sentinelSetup("sentinel-forced-failover",
          "SENTINEL FAILOVER while three workers contend through Sentinel", cluster, primary, FenceMode.CLOCK_FLOOR, 0);
      ChaosRun.Result r = ChaosRun.run(setup, h -> {
        StandaloneChaosTest.sleep(2000);
        long start = h.now();
        cluster.forceFailover();
        primary.set(cluster.replica.port());
        h.fault(start, "sentinel-failover", "SENTINEL FAILOVER: replica " + cluster.replica.port() + " promoted");
      });
      Checker.Counts c = r.counts();
      StandaloneChaosTest.assertFencingAndHonesty(c);
      assertEquals(0, c.duplicateTokens(), "CLOCK_FLOOR issued a token twice: " + c.findings());
      assertTrue(grantsOn(r.history(), cluster.replica.port()) > 0, "no lease was granted by the promoted replica");
    }
  }

  @Test
  @Order(2)
  void crashFailoverUnderLoad() throws Exception {
    try (SentinelCluster cluster = SentinelCluster.start("crash", false)) {
      AtomicInteger primary = new AtomicInteger(cluster.primary.port());
      ChaosRun.Setup setup = sentinelSetup("sentinel-crash-failover",
          "kill -9 of the primary while three workers contend through Sentinel; sentinels promote the replica",
          cluster, primary, FenceMode.CLOCK_FLOOR, 0);
      ChaosRun.Result r = ChaosRun.run(setup, h -> {
        StandaloneChaosTest.sleep(2000);
        long start = h.now();
        cluster.primary.kill();
        cluster.awaitFailoverTo(cluster.replica.port(), Duration.ofSeconds(15));
        primary.set(cluster.replica.port());
        h.fault(start, "kill9-primary+failover", "kill -9 of the primary; replica " + cluster.replica.port() + " promoted");
      });
      Checker.Counts c = r.counts();
      StandaloneChaosTest.assertFencingAndHonesty(c);
      assertEquals(0, c.duplicateTokens(), "CLOCK_FLOOR issued a token twice: " + c.findings());
      assertTrue(grantsOn(r.history(), cluster.replica.port()) > 0, "no lease was granted by the promoted replica");
    }
  }

  @Test
  @Order(3)
  void lostWriteWithCounter() throws Exception {
    LossRow row = failoverWithLoss("failover-loss-counter", FenceMode.COUNTER, 0);
    // The counterexample of invariant 6: the promoted replica never saw A's INCR and issues A's token again.
    assertEquals(row.tokenA(), row.tokenB(), "COUNTER should re-issue the lost token");
    assertEquals(1, row.counts().duplicateTokens());
    assertEquals(1, row.counts().fencedStaleAcceptedClaimedFenced(),
        "A's late write with the re-issued token is accepted by the fenced store while A claims FENCED: " + row.counts().findings());
  }

  @Test
  @Order(4)
  void lostWriteWithClockFloor() throws Exception {
    LossRow row = failoverWithLoss("failover-loss-clock-floor", FenceMode.CLOCK_FLOOR, 0);
    assertTrue(row.tokenB() > row.tokenA(), "CLOCK_FLOOR keeps tokens rising across the failover");
    assertEquals(0, row.counts().fencedStaleAccepted(), row.counts().findings().toString());
    assertEquals("rejected", row.lateWriteFenced());
  }

  @Test
  @Order(5)
  void lostWriteWithCounterAndWait() throws Exception {
    LossRow row = failoverWithLoss("failover-loss-counter-wait", FenceMode.COUNTER, 1);
    // WAIT cannot save the token; it makes the claim honest: A never claimed FENCED.
    assertEquals("EFFICIENCY_ONLY", row.guaranteeA());
    assertEquals("FENCED", row.guaranteeB());
    assertEquals(0, row.counts().fencedStaleAcceptedClaimedFenced(), row.counts().findings().toString());
  }

  @Test
  @Order(6)
  void lostWriteWithClockFloorAndWait() throws Exception {
    LossRow row = failoverWithLoss("failover-loss-clock-floor-wait", FenceMode.CLOCK_FLOOR, 1);
    assertEquals("EFFICIENCY_ONLY", row.guaranteeA());
    assertEquals("FENCED", row.guaranteeB());
    assertTrue(row.tokenB() > row.tokenA());
    assertEquals(0, row.counts().fencedStaleAccepted(), row.counts().findings().toString());
  }

  static long grantsOn(History h, int port) {
    // A grant is on the promoted server when a sample from it showed that grant as holder.
    String label = "redis:" + port;
    return h.of(History.Sample.class).stream().filter(s -> label.equals(s.server()) && s.holder() != null)
        .map(History.Sample::holder).distinct().count();
  }

  static ChaosRun.Setup sentinelSetup(String scenario, String description, SentinelCluster cluster, AtomicInteger primary,
      FenceMode mode, int acks) {
    Worker.Plan plan = ChaosRun.defaultPlan();
    // A failover takes over a second: leases of 1.5 s, waits of up to 3 s.
    plan = new Worker.Plan(Duration.ofMillis(1500), Duration.ofSeconds(3), plan.effectsPerLease(), plan.work(),
        plan.minBudget(), plan.maxOps(), plan.pauseBefore(), plan.pauseBeyondBudget(), false);
    return new ChaosRun.Setup(scenario, description, cluster::uri, cluster.uri(), () -> "redis:" + primary.get(), 3, plan,
        Duration.ofSeconds(7), mode, acks, Duration.ofMillis(200), Duration.ofMillis(20));
  }

  /**
   * The scripted failover that loses A's grant. A and B are separate clients (own connection,
   * own adapter, own database connection), both through Sentinel.
   */
  static LossRow failoverWithLoss(String scenario, FenceMode mode, int acks) throws Exception {
    History h = new History();
    String resource = scenario + "-" + System.currentTimeMillis();
    String digest = dev.leasehold.lease.ResourceDigests.sha256(resource);
    Postgres pg = Postgres.get();
    Duration ttl = Duration.ofSeconds(10);
    Worker.Plan plan = new Worker.Plan(ttl, Duration.ofSeconds(8), 1, Duration.ZERO, Duration.ofMillis(50), 1000,
        g -> false, Duration.ZERO, false);
    String config = mode.name() + (acks > 0 ? " + replicaAck(1, 200 ms)" : "");
    List<AutoCloseable> closeables = new ArrayList<>();
    ChaosRun.Setup setup;
    LossRow row;
    try (SentinelCluster cluster = SentinelCluster.start(scenario, true)) {
      AtomicInteger primary = new AtomicInteger(cluster.primary.port());
      setup = new ChaosRun.Setup(scenario, "replication cut, A granted on the primary only, kill -9 of the primary,"
          + " failover, B granted; then A writes again (" + config + ")", cluster::uri, cluster.uri(),
          () -> "redis:" + primary.get(), 2, plan, Duration.ofSeconds(30), mode, acks, Duration.ofMillis(200),
          Duration.ofMillis(20));
      h.note(scenario + ": " + setup.description() + "; effects in " + pg.description());
      Actor a = actor("A", cluster, setup, pg, resource, digest, h, closeables);
      Sampler sampler = new Sampler(cluster.uri(), h, a.keys(), setup.serverLabel(), 10).start().awaitFirst();
      closeables.add(0, sampler);

      // Warm-up: replication works, so WAIT (when on) is acknowledged and the grant is FENCED.
      LeaseHandle warm = a.worker().acquire("A.a0", request(a, "A.a0", plan));
      assertNotNull(warm, "the warm-up grant failed");
      a.worker().observe("A.a0", warm);
      a.worker().effect("A.a0", warm);
      a.worker().release("A.a0", warm);
      // The release must reach the replica before the cut, or the promoted replica still holds A.a0.
      cluster.awaitReplicaCaughtUp();

      long cut = h.now();
      cluster.replicationLink.blackhole(true);
      h.note("replication link blackholed");
      LeaseHandle handleA = a.worker().acquire("A.a1", request(a, "A.a1", plan));
      assertNotNull(handleA, "A was not granted the lease");
      a.worker().observe("A.a1", handleA);
      a.worker().effect("A.a1", handleA);
      h.fault(cut, "cut-replication", "replication link blackholed: A's grant and counter reach the primary only");

      long crash = h.now();
      cluster.primary.kill();
      cluster.awaitFailoverTo(cluster.replica.port(), Duration.ofSeconds(15));
      primary.set(cluster.replica.port());
      h.fault(crash, "kill9-primary+failover", "kill -9 of the primary; replica " + cluster.replica.port() + " promoted");
      cluster.addReplicaOf(cluster.replica.port());
      h.note("a fresh replica of the new primary is in sync (so WAIT can be acknowledged again)");

      Actor actorB = actor("B", cluster, setup, pg, resource, digest, h, closeables);
      Worker b = actorB.worker();
      h.note("before B: " + Resp.info(cluster.replica.port(), "replication", "slave0")
          + " slave1=" + Resp.info(cluster.replica.port(), "replication", "slave1"));
      LeaseHandle handleB = b.acquire("B.a1", request(actorB, "B.a1", plan));
      h.note("after B: " + Resp.info(cluster.replica.port(), "replication", "slave0")
          + " slave1=" + Resp.info(cluster.replica.port(), "replication", "slave1"));
      assertNotNull(handleB, "B was not granted the lease after the failover");
      b.observe("B.a1", handleB);
      b.effect("B.a1", handleB);
      // Let the sampler see B holding the lease on the new primary while A still believes it holds it.
      StandaloneChaosTest.sleep(300);

      // A still believes it holds the lease (10 s TTL): its late write with its token.
      LeaseState stateA = a.worker().observe("A.a1", handleA);
      h.note("A's handle is " + stateA + " after the failover");
      if (stateA == LeaseState.ACTIVE) {
        a.worker().effect("A.a1", handleA);
      }
      b.release("B.a1", handleB);
      a.worker().release("A.a1", handleA);

      List<History.Effect> late = h.of(History.Effect.class).stream()
          .filter(e -> e.grant().equals("A.a1")).toList();
      String fenced = late.stream().filter(e -> e.store().equals("fenced")).skip(1).findFirst()
          .map(e -> e.accepted() ? "accepted" : "rejected").orElse("not attempted (A not ACTIVE)");
      String control = late.stream().filter(e -> e.store().equals("control")).skip(1).findFirst()
          .map(e -> e.accepted() ? "accepted" : "rejected").orElse("not attempted");
      row = new LossRow(config, handleA.fencingToken().orElse(0), handleA.guarantee().name(),
          handleB.fencingToken().orElse(0), handleB.guarantee().name(), fenced, control, null);
    } finally {
      for (AutoCloseable c : closeables) {
        try {
          c.close();
        } catch (Exception | Error e) {
          // best effort
        }
      }
    }
    ChaosRun.Result result = ChaosRun.finish(setup, h, resource);
    Checker.Counts c = result.counts();
    row = new LossRow(row.config(), row.tokenA(), row.guaranteeA(), row.tokenB(), row.guaranteeB(), row.lateWriteFenced(),
        row.lateWriteControl(), c);
    LOSS.add(row);
    // The fault really lost the write: A and B believed ACTIVE at once, and the control took A's stale write.
    assertEquals(1, c.twoActivePairs(), "the failover did not lose A's lease: " + c.findings());
    assertEquals("accepted", row.lateWriteControl());
    assertEquals(1, c.controlStaleAccepted(), c.findings().toString());
    assertEquals(0, c.certaintyContradictions(), c.findings().toString());
    assertEquals(0, c.stateOutcomeDisagreements(), c.findings().toString());
    if (acks == 0) {
      assertEquals(LeaseGuarantee.FENCED.name(), row.guaranteeA());
    }
    return row;
  }

  /** One client: its own gateway through Sentinel, adapter and database connection. */
  private record Actor(Worker worker, RedisLeaseAdapter adapter, dev.leasehold.redis.LeaseKeys keys, String digest) {}

  private static Actor actor(String name, SentinelCluster cluster, ChaosRun.Setup setup, Postgres pg, String resource,
      String digest, History h, List<AutoCloseable> closeables) throws Exception {
    Gateways.Opened gateway = Gateways.connect(cluster.uri(), ChaosRun.COMMAND_TIMEOUT);
    closeables.add(gateway);
    RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(gateway.gateway()).namespace("chaos").driftBudget(setup.driftBudget())
        .fenceMode(setup.fenceMode()).replicaAck(setup.replicaAcks(), setup.replicaAckTimeout()).build();
    Connection connection = pg.connect();
    closeables.add(connection);
    List<EffectStore> stores = List.of(new FencedStore(connection), new UnfencedStore(connection));
    for (EffectStore s : stores) {
      s.prepare(resource);
    }
    Worker worker = new Worker(name, adapter, stores, resource, digest, h, setup.plan(), Long.MAX_VALUE);
    return new Actor(worker, adapter, adapter.keys(Worker.PURPOSE, digest), digest);
  }

  private static LeaseRequest request(Actor actor, String grant, Worker.Plan plan) {
    return new LeaseRequest(Worker.PURPOSE, actor.digest(), plan.waitTimeout(), plan.ttl(), actor.adapter().newAttempt(grant));
  }

  /** RedisLeases with a Sentinel URI (it once rebuilt the URI and lost the sentinels). */
  private static void assemblyWorksThroughSentinel(SentinelCluster cluster) {
    try (dev.leasehold.redis.RedisLeases leases = dev.leasehold.redis.RedisLeases.builder(cluster.uri()).build()) {
      dev.leasehold.lease.LeaseRequest request = dev.leasehold.lease.LeaseRequest.once("assembly",
          dev.leasehold.lease.ResourceDigests.sha256("sentinel-assembly"), java.time.Duration.ofSeconds(5),
          leases.newAttempt("assembly"));
      dev.leasehold.lease.LeaseHandle handle = org.junit.jupiter.api.Assertions.assertInstanceOf(
          dev.leasehold.lease.AcquireOutcome.Acquired.class, leases.port().tryAcquire(request)).handle();
      org.junit.jupiter.api.Assertions.assertInstanceOf(dev.leasehold.lease.ReleaseOutcome.Released.class, handle.release());
    }
  }
}
