package dev.leasehold.chaos;

import dev.leasehold.testkit.redis.RedisBinary;
import dev.leasehold.testkit.redis.RedisProcess;
import dev.leasehold.testkit.redis.TcpProxy;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A primary, one replica and three sentinels (quorum 2), all redis-server processes on free
 * loopback ports, started by the test and stopped by PID; logs under {@code target/redis-logs} and
 * {@code target/chaos-sentinels}. The replica replicates through a {@link TcpProxy}, so a test can
 * cut only the replication link (the in-process equivalent of the one-way iptables partition in
 * CHAOS-NOTES.md) and then crash the primary to lose a write that never reached the replica.
 *
 * <p>This class is not threadsafe; one test thread drives it.
 */
final class SentinelCluster implements AutoCloseable {
  static final String MASTER = "m";
  /**
   * Per sentinel. Equal values make all three reach odown together and each vote for itself
   * (seen: -failover-abort-not-elected, with the next try 2 x failover-timeout later); the third,
   * slower one always votes for the first that asks, so a leader is always elected.
   */
  static final int[] DOWN_AFTER_MS = {500, 700, 1500};
  /**
   * With replication through the proxy the replica reports the proxy as its master, and a
   * sentinel "fixes" such a replica (REPLICAOF the real primary) once failover-timeout has passed
   * since it found it: that would heal the cut. So the proxied topology uses 60 s, long past any
   * scenario; the direct one uses 3 s so a demoted primary is reconfigured soon.
   */
  static final int FAILOVER_TIMEOUT_MS = 3000;
  static final int PROXIED_FAILOVER_TIMEOUT_MS = 60_000;
  /** Full syncs start at once instead of after Redis 7's 5 s diskless-sync delay. */
  static final String[] NODE_ARGS = {"--repl-diskless-sync-delay", "0"};

  private final String name;
  final RedisProcess primary;
  final TcpProxy replicationLink;
  final RedisProcess replica;
  private final List<Process> sentinels = new ArrayList<>();
  private final List<Integer> sentinelPorts = new ArrayList<>();
  private final List<RedisProcess> extra = new ArrayList<>();
  private final int failoverTimeoutMs;

  private SentinelCluster(String name, boolean proxiedReplication) {
    this.name = name;
    this.failoverTimeoutMs = proxiedReplication ? PROXIED_FAILOVER_TIMEOUT_MS : FAILOVER_TIMEOUT_MS;
    RedisProcess p = null;
    TcpProxy link = null;
    RedisProcess r = null;
    try {
      p = RedisProcess.start(name + "-primary", NODE_ARGS);
      link = proxiedReplication ? TcpProxy.start(name + "-repl", p.port()) : null;
      r = RedisProcess.start(name + "-replica", NODE_ARGS[0], NODE_ARGS[1], "--replicaof", "127.0.0.1",
          Integer.toString(link != null ? link.port() : p.port()));
    } catch (RuntimeException e) {
      if (r != null) {
        r.close();
      }
      if (link != null) {
        link.close();
      }
      if (p != null) {
        p.close();
      }
      throw e;
    }
    this.primary = p;
    this.replicationLink = link;
    this.replica = r;
  }

  /**
   * Starts the processes and waits until the replica is in sync and every sentinel knows the
   * replica (connected, with its INFO) and the two other sentinels.
   *
   * @param proxiedReplication whether the replica replicates through {@link #replicationLink}
   */
  static SentinelCluster start(String name, boolean proxiedReplication) {
    SentinelCluster c = new SentinelCluster(name, proxiedReplication);
    try {
      c.await("replica in sync", Duration.ofSeconds(10),
          () -> "up".equals(Resp.info(c.replica.port(), "replication", "master_link_status"))
              && "1".equals(Resp.info(c.primary.port(), "replication", "connected_slaves")));
      for (int i = 1; i <= 3; i++) {
        c.startSentinel(i);
      }
      c.await("sentinels know the replica and each other", Duration.ofSeconds(20), () -> {
        for (int port : c.sentinelPorts) {
          if (!(Resp.tryCall(port, "SENTINEL", "REPLICAS", MASTER) instanceof List<?> replicas) || replicas.size() != 1
              || !(replicas.get(0) instanceof List<?> fields) || !"slave".equals(field(fields, "flags"))
              || !"ok".equals(field(fields, "master-link-status"))) {
            return false;
          }
          if (!(Resp.tryCall(port, "SENTINEL", "SENTINELS", MASTER) instanceof List<?> others) || others.size() != 2) {
            return false;
          }
        }
        return true;
      });
      return c;
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  private void startSentinel(int i) {
    int port = RedisProcess.freePort();
    Path dir = Path.of("target", "chaos-sentinels", name, "s" + i + "-" + port).toAbsolutePath();
    try {
      Files.createDirectories(dir);
      Path conf = dir.resolve("sentinel.conf");
      // Each sentinel rewrites its own file, so each gets its own, writable.
      Files.writeString(conf, String.join("\n",
          "port " + port,
          "bind 127.0.0.1",
          "dir " + dir,
          "logfile " + dir.resolve("sentinel.log"),
          "sentinel monitor " + MASTER + " 127.0.0.1 " + primary.port() + " 2",
          "sentinel down-after-milliseconds " + MASTER + " " + DOWN_AFTER_MS[i - 1],
          "sentinel failover-timeout " + MASTER + " " + failoverTimeoutMs,
          "sentinel parallel-syncs " + MASTER + " 1",
          ""));
      Path binary = RedisBinary.locate().orElseThrow(() -> new IllegalStateException("no redis-server"));
      Process process = new ProcessBuilder(binary.toString(), conf.toString(), "--sentinel")
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile()))
          .start();
      sentinels.add(process);
      sentinelPorts.add(port);
      await("sentinel " + i + " listening", Duration.ofSeconds(10), () -> "PONG".equals(Resp.tryCall(port, "PING")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Object field(List<?> flat, String key) {
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      if (key.equals(flat.get(i))) {
        return flat.get(i + 1);
      }
    }
    return null;
  }

  /** Waits until the replica has every byte the primary wrote (before a cut, so the cut loses only later writes). */
  void awaitReplicaCaughtUp() {
    await("replica caught up", Duration.ofSeconds(10), () -> {
      String primaryOffset = Resp.info(primary.port(), "replication", "master_repl_offset");
      String replicaOffset = Resp.info(replica.port(), "replication", "slave_repl_offset");
      return primaryOffset != null && primaryOffset.equals(replicaOffset);
    });
  }

  /** Clients connect through Sentinel, as applications do. */
  RedisURI uri() {
    RedisURI.Builder b = RedisURI.Builder.sentinel("127.0.0.1", sentinelPorts.get(0), MASTER);
    for (int i = 1; i < sentinelPorts.size(); i++) {
      b.withSentinel("127.0.0.1", sentinelPorts.get(i));
    }
    return b.build();
  }

  /** The primary's port as the first sentinel that answers reports it, or -1. */
  int masterPort() {
    for (int port : sentinelPorts) {
      if (Resp.tryCall(port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER) instanceof List<?> addr && addr.size() == 2) {
        return Integer.parseInt((String) addr.get(1));
      }
    }
    return -1;
  }

  /** Whether every sentinel names {@code port} as the primary and that server says it is one. */
  boolean failedOverTo(int port) {
    for (int s : sentinelPorts) {
      if (!(Resp.tryCall(s, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER) instanceof List<?> addr)
          || addr.size() != 2 || !Integer.toString(port).equals(addr.get(1))) {
        return false;
      }
    }
    return "master".equals(Resp.info(port, "replication", "role"));
  }

  /** {@code SENTINEL FAILOVER}, then waits until every sentinel names the replica. */
  void forceFailover() {
    Object r = Resp.call(sentinelPorts.get(0), "SENTINEL", "FAILOVER", MASTER);
    if (r instanceof Resp.Error e) {
      throw new IllegalStateException("SENTINEL FAILOVER refused: " + e.message());
    }
    awaitFailoverTo(replica.port(), Duration.ofSeconds(15));
  }

  void awaitFailoverTo(int port, Duration timeout) {
    await("failover to " + port, timeout, () -> failedOverTo(port));
  }

  /** A fresh, empty replica of the current primary, so that WAIT can be acknowledged again. */
  RedisProcess addReplicaOf(int primaryPort) {
    RedisProcess r = RedisProcess.start(name + "-replica" + (extra.size() + 2), NODE_ARGS[0], NODE_ARGS[1], "--replicaof", "127.0.0.1",
        Integer.toString(primaryPort));
    extra.add(r);
    await("new replica in sync", Duration.ofSeconds(10),
        () -> "up".equals(Resp.info(r.port(), "replication", "master_link_status")));
    // After a diskless sync the primary streams to the replica (so WAIT can be acknowledged) only
    // after an ACK that may come a second later: probe with a write and WAIT on one connection.
    await("new replica acknowledging writes", Duration.ofSeconds(10), () -> {
      try {
        List<Object> replies = Resp.pipeline(primaryPort, List.of(
            new String[] {"SET", "chaos:replication-probe", Long.toString(System.nanoTime())},
            new String[] {"WAIT", "1", "100"}));
        return Long.valueOf(1).equals(replies.get(1));
      } catch (UncheckedIOException e) {
        return false;
      }
    });
    return r;
  }

  void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(name + ": timed out waiting for " + what + " after " + timeout);
      }
      Worker.pause(Duration.ofMillis(20));
    }
  }

  @Override
  public void close() {
    for (Process p : sentinels) {
      p.destroyForcibly();
    }
    for (Process p : sentinels) {
      try {
        p.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (RedisProcess r : extra) {
      r.close();
    }
    replica.close();
    if (replicationLink != null) {
      replicationLink.close();
    }
    primary.close();
  }
}
