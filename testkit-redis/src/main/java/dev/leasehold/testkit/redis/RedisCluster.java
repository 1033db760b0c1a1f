package dev.leasehold.testkit.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of {@code redis-server} processes on free loopback ports: {@link #DEFAULT_PRIMARIES}
 * primaries with one replica each, created with {@code redis-cli --cluster create}, ready once every
 * node reports {@code cluster_state:ok} and every replica's link is up; {@link #close()} stops every
 * process by PID. Every node announces 127.0.0.1, so a client never gets another address from
 * {@code CLUSTER NODES}. Needs {@code redis-server} and {@code redis-cli} on PATH (Debian:
 * {@code apt-get install redis-server redis-tools}); without them it fails naming them.
 *
 * <p>This class is not threadsafe; one test thread drives it.
 */
public final class RedisCluster implements AutoCloseable {
  /** Three primaries: the fewest {@code redis-cli --cluster create} accepts. */
  public static final int DEFAULT_PRIMARIES = 3;
  /**
   * 1 s: a primary that stops answering is failed over within about 2 s, which keeps the chaos runs
   * short; loopback nodes never miss 1 s by accident.
   */
  public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

  private final String name;
  private final List<RedisProcess> nodes;
  private final Map<Integer, SideConnection> side = new HashMap<>();

  private record SideConnection(RedisClient client, StatefulRedisConnection<String, String> connection) {}

  private RedisCluster(String name, List<RedisProcess> nodes) {
    this.name = name;
    this.nodes = nodes;
  }

  /** Starts six nodes (3 primaries, 3 replicas) and waits until the cluster is ok. */
  public static RedisCluster start(String name, String... extraArgs) {
    // RedisProcess.startOn takes the PATH binary first; the bundled 6.2 has no redis-cli beside it.
    RedisBinary.onPath().orElseThrow(() -> new IllegalStateException(
        "Redis Cluster tests need redis-server 7 on PATH: apt-get install redis-server"));
    Path cli = onPath("redis-cli").orElseThrow(() -> new IllegalStateException(
        "Redis Cluster tests need redis-cli on PATH: apt-get install redis-tools"));
    List<RedisProcess> nodes = new ArrayList<>();
    RedisCluster cluster = new RedisCluster(name, nodes);
    try {
      for (int i = 0; i < 2 * DEFAULT_PRIMARIES; i++) {
        List<String> args = new ArrayList<>(List.of("--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", Long.toString(DEFAULT_NODE_TIMEOUT.toMillis()),
            "--cluster-announce-ip", "127.0.0.1",
            // A replica cut off for longer than 10 node timeouts would refuse to be promoted;
            // the chaos runs cut replication on purpose, and still want the cluster's own failover.
            "--cluster-replica-validity-factor", "0",
            "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"));
        args.addAll(List.of(extraArgs));
        int port = RedisProcess.freeClusterPort();
        // A nodes.conf left by an earlier run on the same port would make this node rejoin that cluster.
        Files.deleteIfExists(Path.of("target", "redis-logs", name + "-" + i + "-" + port, "nodes.conf"));
        nodes.add(RedisProcess.startOn(name + "-" + i, port, args.toArray(String[]::new)));
      }
      cluster.create(cli);
      cluster.awaitReady();
      return cluster;
    } catch (IOException e) {
      cluster.close();
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private static Optional<Path> onPath(String executable) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, executable);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private void create(Path cli) {
    List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
    nodes.forEach(n -> command.add("127.0.0.1:" + n.port()));
    command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    Path log = nodes.get(0).dir().resolve("cluster-create.log");
    try {
      Process create = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
      if (!create.waitFor(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        create.destroyForcibly();
        throw new IllegalStateException("redis-cli --cluster create did not finish; see " + log);
      }
      if (create.exitValue() != 0) {
        throw new IllegalStateException("redis-cli --cluster create failed: "
            + Files.readString(log, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating the cluster", e);
    }
  }

  /**
   * Waits until every live node reports {@code cluster_state:ok} and knows every node, and every
   * replica's link to its primary is up.
   */
  public void awaitReady() {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      last = notReady();
      if (last.isEmpty()) {
        return;
      }
      sleep(50);
    }
    throw new IllegalStateException("cluster " + name + " not ready within " + READY_TIMEOUT + ": " + last);
  }

  private String notReady() {
    int live = (int) nodes.stream().filter(RedisProcess::isAlive).count();
    for (RedisProcess node : nodes) {
      if (!node.isAlive()) {
        continue;
      }
      try {
        RedisCommands<String, String> c = commands(node);
        String info = c.clusterInfo();
        if (!info.contains("cluster_state:ok")) {
          return node.port() + " is not ok";
        }
        long known = c.clusterNodes().lines().filter(l -> !l.contains("fail") && !l.contains("handshake")).count();
        if (known < live) {
          return node.port() + " knows " + known + " of " + live + " nodes";
        }
        String replication = c.info("replication");
        if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
          return node.port() + " replica link not up";
        }
      } catch (RuntimeException e) {
        return node.port() + ": " + e.getMessage();
      }
    }
    return "";
  }

  /** Every node, started in port order; primaries and replicas change with failovers. */
  public List<RedisProcess> nodes() {
    return List.copyOf(nodes);
  }

  /** A seed URI for a cluster client: the first live node. */
  public RedisURI seedUri() {
    return nodes.stream().filter(RedisProcess::isAlive).findFirst().orElseThrow().uri();
  }

  /** Every live node's URI, so a client can still find the cluster when one node is down. */
  public List<RedisURI> uris() {
    return nodes.stream().filter(RedisProcess::isAlive).map(RedisProcess::uri).toList();
  }

  /** The live node that serves {@code slot} as primary, as the live nodes report it. */
  public RedisProcess primaryOf(int slot) {
    for (RedisProcess node : nodes) {
      if (node.isAlive() && commands(node).info("replication").contains("role:master")) {
        for (String line : commands(node).clusterNodes().lines().toList()) {
          if (line.contains("myself") && servesSlot(line, slot)) {
            return node;
          }
        }
      }
    }
    throw new IllegalStateException("no live primary serves slot " + slot);
  }

  /** The live replicas of {@code primary}. */
  public List<RedisProcess> replicasOf(RedisProcess primary) {
    String id = commands(primary).clusterMyId();
    return nodes.stream().filter(RedisProcess::isAlive)
        .filter(n -> commands(n).clusterNodes().lines()
            .anyMatch(l -> l.contains("myself") && l.contains("slave " + id)))
        .toList();
  }

  private static boolean servesSlot(String nodesLine, int slot) {
    String[] fields = nodesLine.split(" ");
    for (int i = 8; i < fields.length; i++) {
      String range = fields[i];
      if (range.startsWith("[")) {
        continue;
      }
      int dash = range.indexOf('-');
      int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
      int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
      if (slot >= from && slot <= to) {
        return true;
      }
    }
    return false;
  }

  /** Commands on a plain side connection to one node (no redirects followed), to read or change it. */
  public RedisCommands<String, String> commands(RedisProcess node) {
    SideConnection connection = side.get(node.port());
    if (connection == null || !connection.connection().isOpen()) {
      RedisClient client = RedisClient.create(node.uri());
      connection = new SideConnection(client, client.connect());
      side.put(node.port(), connection);
    }
    return connection.connection().sync();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the cluster", e);
    }
  }

  /** Stops every node by PID and forgets their cluster state; idempotent. */
  @Override
  public void close() {
    for (SideConnection connection : side.values()) {
      try {
        connection.connection().close();
      } finally {
        connection.client().shutdown(Duration.ZERO, Duration.ofSeconds(1));
      }
    }
    side.clear();
    for (RedisProcess node : nodes) {
      node.close();
      try {
        Files.deleteIfExists(node.dir().resolve("nodes.conf"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
