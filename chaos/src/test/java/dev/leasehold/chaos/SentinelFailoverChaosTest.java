package dev.leasehold.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.redis.FenceMode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sentinel failover on real processes (primary, replica, three sentinels on loopback): forced
 * with {@code SENTINEL FAILOVER} and by {@code kill -9} under the contended workload, and the
 * failover that loses a write: the replication link is cut, A is granted a lease on the primary
 * only, the primary is killed, the replica is promoted without A's lease and counter increment,
 * and B is granted the same resource ({@link LostWriteFailover}). What happens to the fencing token
 * is the point, for each durability setting the adapter offers. One row of {@link #underLoad()} or
 * {@link #losses()} per scenario.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 90)
class SentinelFailoverChaosTest {
  @AfterAll
  static void printSummary() throws IOException {
    LostWriteFailover.writeTable();
    Summary.print();
  }

  /** A failover under the contended workload: {@code failover} brings it about and returns what it did. */
  record UnderLoad(String name, String description, String fault, Failover failover) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** Makes the replica the primary; returns how, for the history. */
  @FunctionalInterface
  interface Failover {
    String run(SentinelCluster cluster) throws Exception;
  }

  static List<UnderLoad> underLoad() {
    return List.of(
        new UnderLoad("sentinel-forced-failover", "SENTINEL FAILOVER while three workers contend through Sentinel",
            "sentinel-failover", c -> {
              c.forceFailover();
              return "SENTINEL FAILOVER";
            }),
        new UnderLoad("sentinel-crash-failover",
            "kill -9 of the primary while three workers contend through Sentinel; sentinels promote the replica",
            "kill9-primary+failover", c -> {
              c.primary.kill();
              c.awaitFailoverTo(c.replica.port(), Duration.ofSeconds(15));
              return "kill -9 of the primary";
            }));
  }

  /** The failover that loses A's grant, once per durability setting, and what that setting must show. */
  record Loss(String name, FenceMode mode, int acks, Consumer<LostWriteFailover.Row> expect) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Loss> losses() {
    return List.of(
        // The counterexample of invariant 6: the promoted replica never saw A's counter write and issues A's token again.
        new Loss("failover-loss-counter", FenceMode.COUNTER, 0, row -> {
          assertEquals(row.tokenA(), row.tokenB(), "COUNTER should re-issue the lost token");
          assertEquals(1, row.counts().duplicateTokens());
          assertEquals(1, row.counts().fencedStaleAcceptedClaimedFenced(), "A's late write with the re-issued token is"
              + " accepted by the fenced store while A claims FENCED: " + row.counts().findings());
        }),
        new Loss("failover-loss-clock-floor", FenceMode.CLOCK_FLOOR, 0, row -> {
          assertTrue(row.tokenB() > row.tokenA(), "CLOCK_FLOOR keeps tokens rising across the failover");
          assertEquals(0, row.counts().fencedStaleAccepted(), row.counts().findings().toString());
          assertEquals("rejected", row.lateWriteFenced());
        }),
        // WAIT cannot save the token; it makes the claim honest: A never claimed FENCED.
        new Loss("failover-loss-counter-wait", FenceMode.COUNTER, 1, row -> {
          assertEquals("EFFICIENCY_ONLY", row.guaranteeA());
          assertEquals("FENCED", row.guaranteeB());
          assertEquals(0, row.counts().fencedStaleAcceptedClaimedFenced(), row.counts().findings().toString());
        }),
        new Loss("failover-loss-clock-floor-wait", FenceMode.CLOCK_FLOOR, 1, row -> {
          assertEquals("EFFICIENCY_ONLY", row.guaranteeA());
          assertEquals("FENCED", row.guaranteeB());
          assertTrue(row.tokenB() > row.tokenA());
          assertEquals(0, row.counts().fencedStaleAccepted(), row.counts().findings().toString());
        }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("underLoad")
  @Order(1)
  void failoverUnderLoad(UnderLoad row) throws Exception {
    try (SentinelCluster cluster = SentinelCluster.start(row.name(), false)) {
      assemblyWorksThroughSentinel(cluster);
      AtomicInteger primary = new AtomicInteger(cluster.primary.port());
      ChaosRun.Setup setup = sentinelSetup(row.name(), row.description(), cluster, primary, FenceMode.CLOCK_FLOOR, 0);
      ChaosRun.Result r = ChaosRun.run(setup, h -> {
        StandaloneChaosTest.sleep(2000);
        long start = h.now();
        String how = row.failover().run(cluster);
        primary.set(cluster.replica.port());
        h.fault(start, row.fault(), how + "; replica " + cluster.replica.port() + " promoted");
      });
      Checker.Counts c = r.counts();
      StandaloneChaosTest.assertFencingAndHonesty(c);
      assertEquals(0, c.duplicateTokens(), "CLOCK_FLOOR issued a token twice: " + c.findings());
      assertTrue(grantsOn(r.history(), cluster.replica.port()) > 0, "no lease was granted by the promoted replica");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("losses")
  @Order(2)
  void failoverWithLostWrite(Loss loss) throws Exception {
    assertLostWrite(loss, LostWriteFailover.run(loss.name(), loss.mode(), loss.acks()));
  }

  /** What every failover that lost A's grant shows, then what {@code loss}'s setting must show. */
  static void assertLostWrite(Loss loss, LostWriteFailover.Row row) {
    Checker.Counts c = row.counts();
    // The fault really lost the write: A and B believed ACTIVE at once, and the control took A's stale write.
    assertEquals(1, c.twoActivePairs(), "the failover did not lose A's lease: " + c.findings());
    assertEquals("accepted", row.lateWriteControl());
    assertEquals(1, c.controlStaleAccepted(), c.findings().toString());
    assertEquals(0, c.certaintyContradictions(), c.findings().toString());
    assertEquals(0, c.stateOutcomeDisagreements(), c.findings().toString());
    if (loss.acks() == 0) {
      assertEquals(LeaseGuarantee.FENCED.name(), row.guaranteeA());
    }
    loss.expect().accept(row);
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
    return new ChaosRun.Setup(scenario, description, cluster::uri, cluster::uri, () -> "redis:" + primary.get(), 3, plan,
        Duration.ofSeconds(7), mode, acks, Duration.ofMillis(200), Duration.ofMillis(20), false);
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
