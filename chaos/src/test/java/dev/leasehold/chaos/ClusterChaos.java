package dev.leasehold.chaos;

import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.testkit.redis.RedisCluster;
import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A {@link RedisCluster} (3 primaries, 3 replicas) set up to be broken: replicas authenticate to
 * their primary as {@link #REPLICATION_USER}, so that {@link #cutReplication} can stop one
 * primary's replication alone (the user is turned off on that primary and its replica's
 * connection killed: the replica cannot come back, while the cluster bus, and so the cluster's
 * own failover, keeps working). SIGSTOP would not do: the kernel keeps buffering what the primary
 * sends, and the replica applies it when it resumes.
 *
 * <p>This class is not threadsafe; one test thread drives it.
 */
final class ClusterChaos implements AutoCloseable {
  static final String REPLICATION_USER = "chaos-replication";
  private static final String REPLICATION_PASSWORD = "chaos-replication-pw";

  final RedisCluster cluster;

  private ClusterChaos(RedisCluster cluster) {
    this.cluster = cluster;
  }

  static ClusterChaos start(String name) {
    return new ClusterChaos(RedisCluster.start(name, "--masteruser", REPLICATION_USER,
        "--masterauth", REPLICATION_PASSWORD,
        "--user", REPLICATION_USER, "on", ">" + REPLICATION_PASSWORD, "~*", "&*", "+@all"));
  }

  /** A live node to seed a cluster client with. */
  RedisURI seedUri() {
    return cluster.seedUri();
  }

  /** The chaos namespace's keys of {@code digest}, as the workers' adapters build them. */
  LeaseKeys keys(String digest) {
    try (Gateways.Opened gateway = Gateways.connect(seedUri(), ChaosRun.COMMAND_TIMEOUT, true)) {
      return RedisLeaseAdapter.builder(gateway.gateway()).namespace("chaos").build().keys(Worker.PURPOSE, digest);
    } catch (Exception e) {
      throw new IllegalStateException("could not open a cluster gateway", e);
    }
  }

  static int slot(LeaseKeys keys) {
    return SlotHash.getSlot(keys.lease());
  }

  RedisProcess primaryOf(int slot) {
    return cluster.primaryOf(slot);
  }

  RedisProcess replicaOf(RedisProcess primary) {
    List<RedisProcess> replicas = cluster.replicasOf(primary);
    if (replicas.isEmpty()) {
      throw new IllegalStateException("primary " + primary.port() + " has no live replica");
    }
    return replicas.get(0);
  }

  /** Waits until {@code node} serves {@code slot} as primary (the cluster promoted it). */
  void awaitPrimary(int slot, RedisProcess node, Duration timeout) {
    await("node " + node.port() + " primary of slot " + slot, timeout, () -> {
      try {
        return primaryOf(slot).port() == node.port();
      } catch (RuntimeException notYet) {
        return false;
      }
    });
  }

  /**
   * Stops {@code primary}'s replication to {@code replica}: the replication user is turned off on
   * the primary and the replica's connection killed, so its reconnects are refused.
   */
  void cutReplication(RedisProcess primary, RedisProcess replica) {
    Resp.call(primary.port(), "ACL", "SETUSER", REPLICATION_USER, "off");
    Resp.call(primary.port(), "CLIENT", "KILL", "USER", REPLICATION_USER);
    await("replica " + replica.port() + " cut off", Duration.ofSeconds(5),
        () -> "down".equals(Resp.info(replica.port(), "replication", "master_link_status")));
  }

  /**
   * Restarts a killed node, empty, on its port with its cluster identity: the cluster makes it a
   * replica of the node that took over its slots. Returns once the cluster is ready again.
   */
  void rejoinAsReplica(RedisProcess killed) {
    killed.restart();
    cluster.awaitReady();
  }

  /**
   * Waits until a write in the slot of {@code keys} on {@code primary} is acknowledged by a replica:
   * a SET and a {@code WAIT 1} on one connection, so that WAIT counts that write. A replica whose
   * link reads up may still not stream for a second after a full sync.
   */
  void awaitReplicaAcks(RedisProcess primary, LeaseKeys keys) {
    String tag = keys.lease().substring(keys.lease().indexOf('{'), keys.lease().indexOf('}') + 1);
    await("a replica of " + primary.port() + " acknowledges", Duration.ofSeconds(15), () -> {
      try {
        List<Object> replies = Resp.pipeline(primary.port(),
            List.of(new String[] {"SET", "chaos:probe:" + tag, "1"}, new String[] {"WAIT", "1", "100"}));
        return replies.get(1) instanceof Long acks && acks >= 1;
      } catch (RuntimeException notYet) {
        return false;
      }
    });
  }

  private static void await(String what, Duration timeout, BooleanSupplier condition) {
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new IllegalStateException(what + ": not within " + timeout);
      }
      Worker.pause(Duration.ofMillis(20));
    }
  }

  @Override
  public void close() {
    cluster.close();
  }
}
