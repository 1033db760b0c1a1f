package dev.leasehold.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the four scripts on lettuce with {@code EVALSHA}; on {@code NOSCRIPT} only, it loads the
 * script and retries once. Use {@link #clientOptions(Duration)} for the client: commands are
 * rejected while disconnected, so lettuce never silently re-sends an in-flight command after a
 * reconnect, and a lost in-flight command surfaces as ambiguous.
 *
 * <p>This class is threadsafe (lettuce connections are).
 */
public final class LettuceLeaseGateway implements LeaseGateway {
  /** Commands the client may queue before it refuses more (refused ones were never sent). */
  public static final int DEFAULT_REQUEST_QUEUE_SIZE = 10_000;

  private final RedisClusterCommands<String, String> commands;
  private final AutoCloseable owned;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Redis 7+ runs shebang scripts, which are refused before running on READONLY, OOM and the like. */
  private final boolean shebang;

  private LettuceLeaseGateway(RedisClusterCommands<String, String> commands, AutoCloseable owned) {
    this.commands = commands;
    this.owned = owned;
    this.shebang = majorVersion(commands) >= 7;
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
   * The client options this gateway needs: auto-reconnect with commands rejected while
   * disconnected, a bounded queue, a fixed command timeout and no maintenance-event relaxed
   * timeout (it would stretch a lease budget by seconds).
   */
  public static ClientOptions clientOptions(Duration commandTimeout) {
    Objects.requireNonNull(commandTimeout, "commandTimeout");
    return ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .requestQueueSize(DEFAULT_REQUEST_QUEUE_SIZE)
        .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
        .maintNotificationsConfig(MaintNotificationsConfig.disabled())
        .build();
  }

  /** A gateway over a connection the caller opened and will close. */
  public static LettuceLeaseGateway over(StatefulRedisConnection<String, String> connection) {
    return new LettuceLeaseGateway(connection.sync(), null);
  }

  /** A gateway over a cluster connection the caller opened and will close. */
  public static LettuceLeaseGateway over(StatefulRedisClusterConnection<String, String> connection) {
    return new LettuceLeaseGateway(connection.sync(), null);
  }

  /**
   * Opens its own client and connection to {@code uri} (standalone or Sentinel) with
   * {@link #clientOptions(Duration)}; {@link #close()} shuts both down.
   */
  public static LettuceLeaseGateway connect(RedisURI uri, Duration commandTimeout) {
    // The URI is used as given (RedisURI.builder(uri) would drop a Sentinel URI's sentinels);
    // the command timeout comes from the client options and the connection.
    RedisClient client = RedisClient.create(uri);
    try {
      client.setOptions(clientOptions(commandTimeout));
      StatefulRedisConnection<String, String> connection = client.connect();
      connection.setTimeout(commandTimeout);
      return new LettuceLeaseGateway(connection.sync(), () -> closeAll(connection, client::shutdown));
    } catch (RuntimeException e) {
      client.shutdown();
      throw LettuceFailures.classify(e);
    }
  }

  /** Opens its own cluster client and connection; {@link #close()} shuts both down. */
  public static LettuceLeaseGateway connectCluster(RedisURI seed, Duration commandTimeout) {
    RedisClusterClient client = RedisClusterClient.create(seed);
    try {
      client.setOptions(io.lettuce.core.cluster.ClusterClientOptions.builder(clientOptions(commandTimeout)).build());
      StatefulRedisClusterConnection<String, String> connection = client.connect();
      connection.setTimeout(commandTimeout);
      return new LettuceLeaseGateway(connection.sync(), () -> closeAll(connection, client::shutdown));
    } catch (RuntimeException e) {
      client.shutdown();
      throw LettuceFailures.classify(e);
    }
  }

  private static void closeAll(StatefulConnection<?, ?> connection, Runnable shutdown) {
    try {
      connection.close();
    } finally {
      shutdown.run();
    }
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode) {
    return ScriptCalls.acquireReply(run(ScriptCalls.acquire(keys, ownership, ownerToken, ttlMillis, mode)));
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis) {
    return ScriptCalls.changeReply(LeaseScript.RENEW, runScalar(ScriptCalls.renew(keys, ownership, ttlMillis)));
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
  public long waitForReplicas(int replicas, Duration timeout) {
    try {
      return commands.waitForReplication(replicas, timeout.toMillis());
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
        // NOSCRIPT means the script did not run, so loading it and sending again cannot apply twice.
        commands.scriptLoad(script.source(shebang));
        return send(script, type, keys, args);
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
}
