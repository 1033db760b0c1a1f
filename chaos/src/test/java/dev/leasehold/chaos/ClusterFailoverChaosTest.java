package dev.leasehold.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redis Cluster failover on real processes (3 primaries, 3 replicas on loopback, one cluster for
 * the class; {@link ClusterChaos}): kill -9 of the primary of the contended lease's slot under the
 * three-worker workload, the replica promoted by the cluster itself; and the failover that loses a
 * write (that primary's replication cut first), once per durability setting, with the same
 * expectations as the Sentinel scenarios ({@link SentinelFailoverChaosTest#losses()}). Every killed
 * node rejoins as a replica of its successor before the next scenario.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 90)
class ClusterFailoverChaosTest {
  static ClusterChaos cluster;

  @BeforeAll
  static void startCluster() {
    cluster = ClusterChaos.start("chaos-cluster");
  }

  @AfterAll
  static void stopCluster() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    LostWriteFailover.writeTable();
    Summary.print();
  }

  static RedisURI uriOf(AtomicInteger port) {
    return RedisURI.create("redis://127.0.0.1:" + port.get());
  }

  @Test
  @Order(1)
  void crashFailoverUnderLoad() throws Exception {
    String scenario = "cluster-crash-failover";
    String resource = ChaosRun.resource(scenario);
    LeaseKeys keys = cluster.keys(dev.leasehold.lease.ResourceDigests.sha256(resource));
    int slot = ClusterChaos.slot(keys);
    RedisProcess primary = cluster.primaryOf(slot);
    RedisProcess replica = cluster.replicaOf(primary);
    AtomicInteger serving = new AtomicInteger(primary.port());
    Worker.Plan plan = ChaosRun.defaultPlan();
    // A cluster failover takes 2-3 s (node timeout 1 s, then the replica's election): leases of
    // 1.5 s and waits of up to 3 s, as under Sentinel, and a longer run so grants follow it.
    plan = new Worker.Plan(Duration.ofMillis(1500), Duration.ofSeconds(3), plan.effectsPerLease(), plan.work(),
        plan.minBudget(), plan.maxOps(), plan.pauseBefore(), plan.pauseBeyondBudget(), false);
    ChaosRun.Setup setup = new ChaosRun.Setup(scenario,
        "kill -9 of the primary of the lease's slot while three workers contend through a cluster client;"
            + " the cluster promotes its replica", cluster::seedUri, () -> uriOf(serving),
        () -> "redis:" + serving.get(), 3, plan, Duration.ofSeconds(9), FenceMode.CLOCK_FLOOR, 0,
        Duration.ofMillis(200), Duration.ofMillis(20), true);
    ChaosRun.Result r = ChaosRun.run(setup, resource, h -> {
      StandaloneChaosTest.sleep(2000);
      killPrimary(h, slot, primary, replica, serving);
    });
    cluster.rejoinAsReplica(primary);
    Checker.Counts c = r.counts();
    StandaloneChaosTest.assertFencingAndHonesty(c);
    assertEquals(0, c.duplicateTokens(), "CLOCK_FLOOR issued a token twice: " + c.findings());
    assertTrue(SentinelFailoverChaosTest.grantsOn(r.history(), replica.port()) > 0,
        "no lease was granted by the promoted replica");
  }

  /** kill -9 of {@code slot}'s primary; once the cluster has promoted its replica, the workers are sent there. */
  static void killPrimary(History h, int slot, RedisProcess primary, RedisProcess replica, AtomicInteger serving) {
    long start = h.now();
    primary.kill();
    cluster.awaitPrimary(slot, replica, Duration.ofSeconds(20));
    serving.set(replica.port());
    h.fault(start, "kill9-primary+failover", "kill -9 of primary " + primary.port() + "; replica " + replica.port()
        + " promoted by the cluster");
  }

  static List<SentinelFailoverChaosTest.Loss> losses() {
    return SentinelFailoverChaosTest.losses().stream()
        .map(l -> new SentinelFailoverChaosTest.Loss("cluster-" + l.name(), l.mode(), l.acks(), l.expect())).toList();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("losses")
  @Order(2)
  void failoverWithLostWrite(SentinelFailoverChaosTest.Loss loss) throws Exception {
    SentinelFailoverChaosTest.assertLostWrite(loss, lostWrite(loss.name(), loss.mode(), loss.acks()));
  }

  /**
   * {@link LostWriteFailover}'s script on the cluster: A granted on the slot's primary with its
   * replication cut, the primary killed, its replica promoted by the cluster, the old primary back
   * as the new one's replica (so WAIT can be acknowledged again), B granted, A's late write.
   */
  static LostWriteFailover.Row lostWrite(String scenario, FenceMode mode, int acks) throws Exception {
    History h = new History();
    String resource = ChaosRun.resource(scenario);
    String digest = dev.leasehold.lease.ResourceDigests.sha256(resource);
    Postgres pg = Postgres.get();
    Worker.Plan plan = new Worker.Plan(Duration.ofSeconds(10), Duration.ofSeconds(8), 1, Duration.ZERO,
        Duration.ofMillis(50), 1000, g -> false, Duration.ZERO, false);
    String config = "cluster: " + mode.name() + (acks > 0 ? " + replicaAck(1, 200 ms)" : "");
    LeaseKeys keys = cluster.keys(digest);
    int slot = ClusterChaos.slot(keys);
    RedisProcess primary = cluster.primaryOf(slot);
    RedisProcess replica = cluster.replicaOf(primary);
    AtomicInteger serving = new AtomicInteger(primary.port());
    ChaosRun.Setup setup = new ChaosRun.Setup(scenario, "replication of the slot's primary cut, A granted on the"
        + " primary only, kill -9 of the primary, the cluster promotes the replica, B granted; then A writes again ("
        + config + ")", cluster::seedUri, () -> uriOf(serving), () -> "redis:" + serving.get(), 2, plan,
        Duration.ofSeconds(30), mode, acks, Duration.ofMillis(200), Duration.ofMillis(20), true);
    h.note(scenario + ": " + setup.description() + "; effects in " + pg.description());
    List<AutoCloseable> closeables = new ArrayList<>();
    LostWriteFailover.Row row;
    try {
      LostWriteFailover.Actor a = LostWriteFailover.actor("A",
          Gateways.connect(cluster.seedUri(), ChaosRun.COMMAND_TIMEOUT, true), setup, pg, resource, digest, h, closeables);
      Sampler sampler = new Sampler(setup.sampleUri(), h, a.keys(), setup.serverLabel(), 10).start().awaitFirst();
      closeables.add(0, sampler);

      // Warm-up: replication works, so WAIT (when on) is acknowledged and the grant is FENCED.
      LeaseHandle warm = a.worker().acquire("A.a0", LostWriteFailover.request(a, "A.a0", plan));
      assertNotNull(warm, "the warm-up grant failed");
      a.worker().observe("A.a0", warm);
      a.worker().effect("A.a0", warm);
      a.worker().release("A.a0", warm);
      // The release must reach the replica before the cut, or the promoted replica still holds A.a0.
      cluster.awaitReplicaAcks(primary, keys);

      long cut = h.now();
      cluster.cutReplication(primary, replica);
      h.note("replication of " + primary.port() + " to " + replica.port() + " cut");
      LeaseHandle handleA = a.worker().acquire("A.a1", LostWriteFailover.request(a, "A.a1", plan));
      assertNotNull(handleA, "A was not granted the lease");
      a.worker().observe("A.a1", handleA);
      a.worker().effect("A.a1", handleA);
      h.fault(cut, "cut-replication", "replication cut: A's grant and counter reach the primary only");

      killPrimary(h, slot, primary, replica, serving);
      cluster.rejoinAsReplica(primary);
      cluster.awaitReplicaAcks(replica, keys);
      h.note("the old primary rejoined, empty, as the new primary's replica, and acknowledges writes");

      LostWriteFailover.Actor actorB = LostWriteFailover.actor("B",
          Gateways.connect(cluster.seedUri(), ChaosRun.COMMAND_TIMEOUT, true), setup, pg, resource, digest, h, closeables);
      Worker b = actorB.worker();
      LeaseHandle handleB = b.acquire("B.a1", LostWriteFailover.request(actorB, "B.a1", plan));
      row = LostWriteFailover.bothWrite(config, h, a, handleA, b, handleB);
    } finally {
      for (AutoCloseable c : closeables) {
        try {
          c.close();
        } catch (Exception | Error e) {
          // best effort
        }
      }
    }
    return LostWriteFailover.checked(setup, h, resource, row);
  }
}
