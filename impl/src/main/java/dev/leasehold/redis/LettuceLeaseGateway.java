package dev.leasehold.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Runs the four scripts on lettuce with {@code EVALSHA}; on {@code NOSCRIPT} only, it sends the
 * script's text once with {@code EVAL}, on the same node (which caches it). Not {@code SCRIPT LOAD}:
 * a cluster client sends that to every primary, and one stalled node would hold back a call to a
 * healthy one. Use {@link #clientOptions(Duration)} for the client: commands are
 * rejected while disconnected, so lettuce never silently re-sends an in-flight command after a
 * reconnect, and a lost in-flight command surfaces as ambiguous.
 *
 * <p>This class is threadsafe (lettuce connections are).
 */
public final class LettuceLeaseGateway implements LeaseGateway {
  /** Commands the client may queue before it refuses more (refused ones were never sent). */
  public static final int DEFAULT_REQUEST_QUEUE_SIZE = 10_000;
  /**
   * 1 s: how often a cluster client re-reads the cluster's topology, so that it finds a promoted
   * replica within about a second of the promotion (see {@link #clusterClientOptions}).
   */
  public static final Duration DEFAULT_CLUSTER_TOPOLOGY_REFRESH = Duration.ofSeconds(1);

  private final RedisClusterCommands<String, String> commands;
  /** Where WAIT goes for a lease's keys: the connection its script went through (see {@link #waitForReplicas}). */
  private final Function<LeaseKeys, RedisClusterCommands<String, String>> waitOn;
  private final AutoCloseable owned;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Redis 7+ runs shebang scripts, which are refused before running on READONLY, OOM and the like. */
  private final boolean shebang;
  private final RenewBatcher batcher;

  private LettuceLeaseGateway(RedisClusterCommands<String, String> commands, RedisClusterAsyncCommands<String, String> async,
      boolean cluster, RenewBatcher.Linger linger, Function<LeaseKeys, RedisClusterCommands<String, String>> waitOn,
      AutoCloseable owned) {
    this.commands = commands;
    this.waitOn = waitOn;
    this.owned = owned;
    this.shebang = majorVersion(commands) >= 7;
    this.batcher = new RenewBatcher(async, shebang, cluster, linger);
  }

  /** Where a connection's renewal batches wait out their linger: its client's event executors. */
  private static RenewBatcher.Linger linger(StatefulConnection<String, String> connection) {
    return RenewBatcher.Linger.on(connection.getResources().eventExecutorGroup());
  }

  private static int majorVersion(RedisClusterCommands<String, String> commands) {
    try {
      String info = commands.info("server");
      int at = info.indexOf("redis_version:");
      if (at < 0) {
        return 7;
      }
      String version = info.substring(at + "redis_version:".length()).trim();
      return Integer.parseInt(version.substring(0, version.indexOf('.')));
    } catch (RuntimeException e) {
      throw LettuceFailures.classify(e);
    }
  }

  /**
   * The {@link GatewayException} this gateway throws for an exception lettuce raised: only what
   * proves the command did not run is not {@link GatewayException.Failure#AMBIGUOUS}. Public so that
   * a gateway of your own over lettuce, and a test that injects lettuce's own exceptions, sort them
   * as this gateway does. For lettuce's interrupted-command exception it sets the calling thread's
   * interrupt flag: the wait for the reply was interrupted.
   *
   * @throws IllegalArgumentException if {@code lettuceException} is null
   */
  public static GatewayException failureOf(Throwable lettuceException) {
    return LettuceFailures.classify(Arguments.notNull("lettuceException", lettuceException));
  }

  /**
   * The client options this gateway needs: auto-reconnect with commands rejected while
   * disconnected, a bounded queue, a fixed command timeout and no maintenance-event relaxed
   * timeout (it would stretch a lease budget by seconds).
   */
  public static ClientOptions clientOptions(Duration commandTimeout) {
    Arguments.commandTimeout(commandTimeout);
    return ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .requestQueueSize(DEFAULT_REQUEST_QUEUE_SIZE)
        .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
        .maintNotificationsConfig(MaintNotificationsConfig.disabled())
        .build();
  }

  /**
   * {@link #clientOptions(Duration)} for a cluster client, which also refreshes its view of the
   * cluster every {@link #DEFAULT_CLUSTER_TOPOLOGY_REFRESH} and on every adaptive trigger (MOVED,
   * ASK, reconnects, an uncovered slot) at most that often. Without a periodic refresh a client
   * kept sending to a killed primary (rejected: not connected) after the cluster had promoted its
   * replica: lettuce's one adaptive refresh came from the reconnect attempts, before the promotion,
   * and the next was not allowed for 30 s.
   */
  public static ClusterClientOptions clusterClientOptions(Duration commandTimeout) {
    return ClusterClientOptions.builder(clientOptions(commandTimeout))
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enablePeriodicRefresh(DEFAULT_CLUSTER_TOPOLOGY_REFRESH)
            .enableAllAdaptiveRefreshTriggers()
            .adaptiveRefreshTriggersTimeout(DEFAULT_CLUSTER_TOPOLOGY_REFRESH)
            .build())
        .build();
  }

  /** A gateway over a connection the caller opened and will close. */
  public static LettuceLeaseGateway over(StatefulRedisConnection<String, String> connection) {
    return owning(Arguments.notNull("connection", connection), null);
  }

  /** A gateway over a cluster connection the caller opened and will close. */
  public static LettuceLeaseGateway over(StatefulRedisClusterConnection<String, String> connection) {
    return owning(Arguments.notNull("connection", connection), null);
  }

  /** A gateway over {@code connection} whose close also closes {@code owned} (null: nothing). */
  static LettuceLeaseGateway owning(StatefulRedisConnection<String, String> connection, AutoCloseable owned) {
    return owning(connection, owned, linger(connection));
  }

  /** As {@link #owning(StatefulRedisConnection, AutoCloseable)}, with the renewal batches' linger given. */
  static LettuceLeaseGateway owning(StatefulRedisConnection<String, String> connection, AutoCloseable owned,
      RenewBatcher.Linger linger) {
    RedisClusterCommands<String, String> commands = connection.sync();
    return new LettuceLeaseGateway(commands, connection.async(), false, linger, keys -> commands, owned);
  }

  /** As {@link #owning(StatefulRedisConnection, AutoCloseable)}, for a cluster connection. */
  static LettuceLeaseGateway owning(StatefulRedisClusterConnection<String, String> connection, AutoCloseable owned) {
    return new LettuceLeaseGateway(connection.sync(), connection.async(), true, linger(connection),
        keys -> slotPrimary(connection, keys), owned);
  }

  /**
   * The connection to the primary that owns the keys' slot, as lettuce's routing knows it: the
   * same pooled connection (write intent, host and port) that lettuce sent the script on, so that
   * WAIT counts the replicas that acknowledged that script's writes. The cluster connection itself
   * would send the keyless WAIT to its default node, whose answer says nothing about this slot.
   */
  private static RedisClusterCommands<String, String> slotPrimary(StatefulRedisClusterConnection<String, String> connection,
      LeaseKeys keys) {
    RedisClusterNode primary = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(keys.lease()));
    if (primary == null) {
      throw new GatewayException(GatewayException.Failure.NOT_SENT, "no known primary for the lease's slot");
    }
    return connection.getConnection(primary.getUri().getHost(), primary.getUri().getPort()).sync();
  }

  /**
   * Opens its own client and connection to {@code uri} (standalone or Sentinel) with
   * {@link #clientOptions(Duration)}; {@link #close()} shuts both down. The same client set-up as
   * {@code RedisLeases.builder(uri)} ({@link LettuceTopology}).
   */
  public static LettuceLeaseGateway connect(RedisURI uri, Duration commandTimeout) {
    return LettuceTopology.of(Arguments.notNull("uri", uri), false, null, null, Arguments.commandTimeout(commandTimeout), null)
        .openGateway(commandTimeout);
  }

  /**
   * Opens its own cluster client and connection from a seed node; {@link #close()} shuts both down.
   * The same client set-up as {@code RedisLeases.builder(uri).cluster()} ({@link LettuceTopology}).
   */
  public static LettuceLeaseGateway connectCluster(RedisURI seed, Duration commandTimeout) {
    return LettuceTopology.of(Arguments.notNull("seed", seed), true, null, null, Arguments.commandTimeout(commandTimeout), null)
        .openGateway(commandTimeout);
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode, long counterRetentionMillis) {
    return ScriptCalls.acquireReply(run(ScriptCalls.acquire(keys, ownership, ownerToken, ttlMillis, mode, counterRetentionMillis)));
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
    return ScriptCalls.renewReply(run(ScriptCalls.renew(keys, ownership, ttlMillis, counterRetentionMillis)), 1).get(0);
  }

  /**
   * Sends the renewal with others queued within a millisecond, up to {@link RenewBatcher#MAX_BATCH}
   * leases per RENEW call (in a Cluster, the leases of one slot), and returns at once.
   */
  @Override
  public CompletableFuture<GatewayReply.Change> renewAsync(LeaseKeys keys, String ownership, long ttlMillis,
      long counterRetentionMillis) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new GatewayException(GatewayException.Failure.NOT_SENT, "the gateway is closed"));
    }
    return batcher.renew(new ScriptCalls.Renewal(keys, ownership, ttlMillis), counterRetentionMillis);
  }

  @Override
  public GatewayReply.Change release(LeaseKeys keys, String ownership) {
    return ScriptCalls.changeReply(LeaseScript.RELEASE, runScalar(ScriptCalls.release(keys, ownership)));
  }

  @Override
  public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    return ScriptCalls.inspectReply(run(ScriptCalls.inspect(keys, ownership)));
  }

  @Override
  public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
    try {
      return waitOn.apply(keys).waitForReplication(replicas, timeout.toMillis());
    } catch (RuntimeException e) {
      throw LettuceFailures.classify(e);
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true) && owned != null) {
      try {
        owned.close();
      } catch (Exception e) {
        throw new GatewayException(GatewayException.Failure.NOT_SENT, "closing the connection failed", e);
      }
    }
  }

  private List<Object> run(ScriptCalls.Call call) {
    return evalsha(call.script(), ScriptOutputType.MULTI, call.keyArray(), call.argArray());
  }

  private Long runScalar(ScriptCalls.Call call) {
    return evalsha(call.script(), ScriptOutputType.INTEGER, call.keyArray(), call.argArray());
  }

  private <T> T evalsha(LeaseScript script, ScriptOutputType type, String[] keys, String... args) {
    try {
      try {
        return send(script, type, keys, args);
      } catch (RedisNoScriptException e) {
        // NOSCRIPT means the script did not run, so sending its text cannot apply twice.
        return sendText(script, type, keys, args);
      }
    } catch (RuntimeException e) {
      throw LettuceFailures.classify(e);
    }
  }

  private <T> T send(LeaseScript script, ScriptOutputType type, String[] keys, String... args) {
    return script.readOnly() && shebang
        ? commands.evalshaReadOnly(script.sha1(shebang), type, keys, args)
        : commands.evalsha(script.sha1(shebang), type, keys, args);
  }

  private <T> T sendText(LeaseScript script, ScriptOutputType type, String[] keys, String... args) {
    return script.readOnly() && shebang
        ? commands.evalReadOnly(script.source(shebang), type, keys, args)
        : commands.eval(script.source(shebang), type, keys, args);
  }
}
