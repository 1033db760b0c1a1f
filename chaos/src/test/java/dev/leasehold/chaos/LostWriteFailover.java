package dev.leasehold.chaos;

import static org.junit.jupiter.api.Assertions.assertNotNull;

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

/**
 * The failover that loses a write, scripted step by step on a Sentinel cluster whose replication
 * goes through a proxy: the replication link is cut, A is granted a lease on the primary only, the
 * primary is killed, the replica is promoted without A's lease and counter increment, B is granted
 * the same resource, and A, still ACTIVE, writes again with its token. Each run adds one row to
 * {@code target/chaos/failover-with-loss.md}.
 *
 * <p>This class is threadsafe for its table; one test thread runs one script at a time.
 */
final class LostWriteFailover {
  /** One line of the failover-with-loss table. */
  record Row(String config, long tokenA, String guaranteeA, long tokenB, String guaranteeB, String lateWriteFenced,
      String lateWriteControl, Checker.Counts counts) {}

  private static final List<Row> ROWS = new ArrayList<>();

  private LostWriteFailover() {}

  /**
   * The scripted failover that loses A's grant. A and B are separate clients (own connection,
   * own adapter, own database connection), both through Sentinel.
   */
  static Row run(String scenario, FenceMode mode, int acks) throws Exception {
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
    Row row;
    try (SentinelCluster cluster = SentinelCluster.start(scenario, true)) {
      AtomicInteger primary = new AtomicInteger(cluster.primary.port());
      setup = new ChaosRun.Setup(scenario, "replication cut, A granted on the primary only, kill -9 of the primary,"
          + " failover, B granted; then A writes again (" + config + ")", cluster::uri, cluster::uri,
          () -> "redis:" + primary.get(), 2, plan, Duration.ofSeconds(30), mode, acks, Duration.ofMillis(200),
          Duration.ofMillis(20), false);
      h.note(scenario + ": " + setup.description() + "; effects in " + pg.description());
      Actor a = actor("A", Gateways.connect(cluster.uri(), ChaosRun.COMMAND_TIMEOUT), setup, pg, resource, digest, h,
          closeables);
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

      Actor actorB = actor("B", Gateways.connect(cluster.uri(), ChaosRun.COMMAND_TIMEOUT), setup, pg, resource, digest, h,
          closeables);
      Worker b = actorB.worker();
      h.note("before B: " + Resp.info(cluster.replica.port(), "replication", "slave0")
          + " slave1=" + Resp.info(cluster.replica.port(), "replication", "slave1"));
      LeaseHandle handleB = b.acquire("B.a1", request(actorB, "B.a1", plan));
      h.note("after B: " + Resp.info(cluster.replica.port(), "replication", "slave0")
          + " slave1=" + Resp.info(cluster.replica.port(), "replication", "slave1"));
      row = bothWrite(config, h, a, handleA, b, handleB);
    } finally {
      for (AutoCloseable c : closeables) {
        try {
          c.close();
        } catch (Exception | Error e) {
          // best effort
        }
      }
    }
    return checked(setup, h, resource, row);
  }

  /** Checks a scripted run's history, writes its files and summary row, and adds its line to the table. */
  static Row checked(ChaosRun.Setup setup, History h, String resource, Row row) throws java.sql.SQLException {
    ChaosRun.Result result = ChaosRun.finish(setup, h, resource);
    Checker.Counts c = result.counts();
    Row checked = new Row(row.config(), row.tokenA(), row.guaranteeA(), row.tokenB(), row.guaranteeB(),
        row.lateWriteFenced(), row.lateWriteControl(), c);
    synchronized (ROWS) {
      ROWS.add(checked);
    }
    return checked;
  }

  /** A's late writes (the second of each store), as the table shows them. */
  /**
   * The end every lost-write scenario shares: B, granted on the new primary, writes; A, which may
   * still believe it holds the lease (10 s TTL), writes late with its token if its handle says
   * ACTIVE; both release. Returns the scenario's row.
   */
  static Row bothWrite(String config, History h, Actor a, LeaseHandle handleA, Worker b, LeaseHandle handleB) {
    assertNotNull(handleB, "B was not granted the lease after the failover");
    b.observe("B.a1", handleB);
    b.effect("B.a1", handleB);
    // Let the sampler see B holding the lease on the new primary while A still believes it holds it.
    StandaloneChaosTest.sleep(300);
    LeaseState stateA = a.worker().observe("A.a1", handleA);
    h.note("A's handle is " + stateA + " after the failover");
    if (stateA == LeaseState.ACTIVE) {
      a.worker().effect("A.a1", handleA);
    }
    b.release("B.a1", handleB);
    a.worker().release("A.a1", handleA);
    return row(config, h, handleA, handleB);
  }

  static Row row(String config, History h, LeaseHandle handleA, LeaseHandle handleB) {
    List<History.Effect> late = h.of(History.Effect.class).stream()
        .filter(e -> e.grant().equals("A.a1")).toList();
    String fenced = late.stream().filter(e -> e.store().equals("fenced")).skip(1).findFirst()
        .map(e -> e.accepted() ? "accepted" : "rejected").orElse("not attempted (A not ACTIVE)");
    String control = late.stream().filter(e -> e.store().equals("control")).skip(1).findFirst()
        .map(e -> e.accepted() ? "accepted" : "rejected").orElse("not attempted");
    return new Row(config, handleA.fencingToken().orElse(0), handleA.guarantee().name(),
        handleB.fencingToken().orElse(0), handleB.guarantee().name(), fenced, control, null);
  }

  /** One client: its own gateway (through Sentinel, or a cluster client), adapter and database connection. */
  record Actor(Worker worker, RedisLeaseAdapter adapter, dev.leasehold.redis.LeaseKeys keys, String digest) {}

  static Actor actor(String name, Gateways.Opened gateway, ChaosRun.Setup setup, Postgres pg, String resource,
      String digest, History h, List<AutoCloseable> closeables) throws Exception {
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

  static LeaseRequest request(Actor actor, String grant, Worker.Plan plan) {
    return new LeaseRequest(Worker.PURPOSE, actor.digest(), plan.waitTimeout(), plan.ttl(), actor.adapter().newAttempt(grant));
  }

  /** Writes (and prints) the table of every run so far. */
  static void writeTable() throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("| setting | A's token (lost grant) | A's guarantee | B's token (after failover) | B's guarantee"
        + " | A's late write, fenced store | A's late write, control | two ACTIVE | fenced stale accepted, claimed FENCED"
        + " | fenced stale accepted, claimed EFFICIENCY_ONLY |\n");
    sb.append("|---|--:|---|--:|---|---|---|--:|--:|--:|\n");
    synchronized (ROWS) {
      for (Row r : ROWS) {
        sb.append("| ").append(r.config()).append(" | ").append(r.tokenA()).append(" | ").append(r.guaranteeA())
            .append(" | ").append(r.tokenB()).append(" | ").append(r.guaranteeB()).append(" | ").append(r.lateWriteFenced())
            .append(" | ").append(r.lateWriteControl()).append(" | ").append(r.counts().twoActivePairs())
            .append(" | ").append(r.counts().fencedStaleAcceptedClaimedFenced())
            .append(" | ").append(r.counts().fencedStaleAcceptedClaimedEfficiency()).append(" |\n");
      }
    }
    Files.createDirectories(ChaosRun.OUT);
    Files.writeString(ChaosRun.OUT.resolve("failover-with-loss.md"), sb.toString(), StandardCharsets.UTF_8);
    System.out.println("\nFailover with a lost write (target/chaos/failover-with-loss.md):\n" + sb);
  }
}
