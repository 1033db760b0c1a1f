package dev.leasehold.chaos;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseAdapter;
import io.lettuce.core.RedisURI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One bounded chaos run: a sampler, N workers contending for one resource with their own
 * connections (through {@code clientUri}, which may be a proxy, Sentinel or a cluster seed), a fault script on the
 * calling thread, then the check, the history file, the timeline and a summary row.
 *
 * <p>This class is not threadsafe; one test thread runs one run at a time.
 */
final class ChaosRun {
  /** The output folder, {@code chaos/target/chaos} when run by Maven. */
  static final Path OUT = Path.of("target", "chaos");
  /** The command timeout of every worker's connection. */
  static final Duration COMMAND_TIMEOUT = Duration.ofMillis(250);

  /** What the fault thread does while the workers run; it must return by itself. */
  @FunctionalInterface
  interface FaultScript {
    void run(History history) throws Exception;
  }

  /** The settings of one run. */
  record Setup(
      String scenario,
      String description,
      Supplier<RedisURI> clientUri,
      Supplier<RedisURI> sampleUri,
      Supplier<String> serverLabel,
      int workers,
      Worker.Plan plan,
      Duration duration,
      FenceMode fenceMode,
      int replicaAcks,
      Duration replicaAckTimeout,
      Duration driftBudget,
      boolean cluster) {

    Setup withFenceMode(FenceMode mode) {
      return new Setup(scenario, description, clientUri, sampleUri, serverLabel, workers, plan, duration, mode,
          replicaAcks, replicaAckTimeout, driftBudget, cluster);
    }
  }

  /** What a run produced. */
  record Result(Setup setup, History history, Checker.Counts counts, String resource) {}

  private ChaosRun() {}

  /** A run over a standalone server (directly or through a proxy). */
  static Setup standalone(String scenario, String description, Supplier<RedisURI> clientUri, RedisURI sampleUri,
      Worker.Plan plan, Duration duration) {
    return new Setup(scenario, description, clientUri, () -> sampleUri, () -> "redis:" + sampleUri.getPort(), 3, plan,
        duration, FenceMode.CLOCK_FLOOR, 0, Duration.ofMillis(100), Duration.ofMillis(20), false);
  }

  /** The default plan: 1 s leases, renewed, up to three effects each, 200 operations per worker at most. */
  static Worker.Plan defaultPlan() {
    return new Worker.Plan(Duration.ofMillis(1000), Duration.ofMillis(400), 3, Duration.ofMillis(40),
        Duration.ofMillis(60), 200, g -> false, Duration.ofMillis(300), false);
  }

  static Result run(Setup setup, FaultScript faults) throws Exception {
    return run(setup, resource(setup.scenario()), faults);
  }

  /** A fresh resource name for a scenario. */
  static String resource(String scenario) {
    return scenario + "-" + System.currentTimeMillis();
  }

  /** As {@link #run(Setup, FaultScript)}, on a resource chosen before (whose keys decide a cluster node). */
  static Result run(Setup setup, String resource, FaultScript faults) throws Exception {
    History history = new History();
    String digest = dev.leasehold.lease.ResourceDigests.sha256(resource);
    Postgres pg = Postgres.get();
    List<AutoCloseable> closeables = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    long endAt = history.now() + setup.duration().toNanos();
    history.note(setup.scenario() + ": " + setup.description() + " (effects in " + pg.description() + ")");
    try {
      LeaseKeys keys = null;
      for (int i = 1; i <= setup.workers(); i++) {
        Gateways.Opened gateway = Gateways.connect(setup.clientUri().get(), COMMAND_TIMEOUT, setup.cluster());
        closeables.add(gateway);
        RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(gateway.gateway())
            .namespace("chaos")
            .driftBudget(setup.driftBudget())
            .fenceMode(setup.fenceMode())
            .replicaAck(setup.replicaAcks(), setup.replicaAckTimeout())
            .build();
        keys = adapter.keys(Worker.PURPOSE, digest);
        Connection connection = pg.connect();
        closeables.add(connection);
        List<EffectStore> stores = List.of(new FencedStore(connection), new UnfencedStore(connection));
        for (EffectStore store : stores) {
          store.prepare(resource);
        }
        Worker worker = new Worker("w" + i, adapter, stores, resource, digest, history, setup.plan(), endAt);
        Thread t = new Thread(worker, setup.scenario() + "-w" + i);
        t.setDaemon(true);
        threads.add(t);
      }
      Sampler sampler = new Sampler(setup.sampleUri(), history, keys, setup.serverLabel(), 10).start().awaitFirst();
      closeables.add(0, sampler);
      threads.forEach(Thread::start);
      try {
        faults.run(history);
      } finally {
        long joinBy = System.nanoTime() + setup.duration().toNanos() + Duration.ofSeconds(15).toNanos();
        for (Thread t : threads) {
          t.join(Math.max(1, (joinBy - System.nanoTime()) / 1_000_000));
        }
        for (Thread t : threads) {
          if (t.isAlive()) {
            t.interrupt();
            history.note("worker " + t.getName() + " did not stop in time and was interrupted");
          }
        }
      }
      history.note("run ended");
    } finally {
      for (AutoCloseable c : closeables) {
        try {
          c.close();
        } catch (Exception | Error e) {
          // best effort: the processes are stopped by the test anyway
        }
      }
    }
    return finish(setup, history, resource);
  }

  /** Checks a finished history and writes its files and summary row. */
  static Result finish(Setup setup, History history, String resource) throws SQLException {
    Checker.Counts counts = Checker.check(history);
    history.writeJsonLines(OUT.resolve(setup.scenario()).resolve("history.jsonl"));
    Timeline.write(OUT.resolve(setup.scenario() + ".html"), setup, history, counts);
    Summary.add(setup, history, counts);
    return new Result(setup, history, counts, resource);
  }
}
