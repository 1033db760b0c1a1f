package dev.leasehold.redis;

import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseException;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.LeaseRunner;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.LeaseWork;
import dev.leasehold.lease.MeteredLeasePort;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production assembly, and the one entry point: {@code RedisLeases.builder(uri)...build()}
 * gives a {@link DistributedLeasePort} (a {@link RedisLeaseAdapter} over a
 * {@link LettuceLeaseGateway}, metered when a {@link MeterRegistry} is given), a
 * {@link LeaseWatchdog}, a {@link ReleaseSignals} sleeper so that waiters wake when a holder
 * releases, and {@link #withLease(LeaseRequest, LeaseWork)}.
 *
 * <p>{@link #close()} closes what this instance opened, in reverse order (watchdog, pub/sub
 * connection, command connection, and the lettuce client if it created it), and is idempotent.
 * An injected lettuce client or executor is never shut down. Handles still held are not
 * released by close; their leases expire with their TTL.
 *
 * <p>This class is threadsafe.
 *
 * @see Builder
 */
public final class RedisLeases implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RedisLeases.class);

  /** Defaults to 2 s: a command without a reply by then is {@code Indeterminate}. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);
  /** Defaults to {@code true}: waiters subscribe to the release channel while they sleep. */
  public static final boolean DEFAULT_RELEASE_SIGNALS = true;
  /** Defaults to {@code false}: a lost lease cancels the work by flag only. */
  public static final boolean DEFAULT_INTERRUPT_WORK_ON_LOSS = false;

  private final RedisLeaseAdapter adapter;
  private final DistributedLeasePort port;
  private final LeaseWatchdog watchdog;
  private final ReleaseSignals signals;
  private final LeaseRunner runner;
  private final Deque<AutoCloseable> opened;
  private final AtomicBoolean closed = new AtomicBoolean();

  private RedisLeases(RedisLeaseAdapter adapter, DistributedLeasePort port, LeaseWatchdog watchdog,
      ReleaseSignals signals, LeaseRunner runner, Deque<AutoCloseable> opened) {
    this.adapter = adapter;
    this.port = port;
    this.watchdog = watchdog;
    this.signals = signals;
    this.runner = runner;
    this.opened = opened;
  }

  /**
   * Connects to a standalone server, or through Sentinel for a {@code redis-sentinel://} URI, with
   * a lettuce client this instance creates (with {@link LettuceLeaseGateway#clientOptions}) and
   * shuts down on close. For a cluster, call {@link Builder#cluster()}.
   */
  public static Builder builder(RedisURI uri) {
    return new Builder(Objects.requireNonNull(uri, "uri"), null, null);
  }

  /** As {@link #builder(RedisURI)}, from a URI string such as {@code redis://127.0.0.1:6379}. */
  public static Builder builder(String uri) {
    return builder(RedisURI.create(Objects.requireNonNull(uri, "uri")));
  }

  /**
   * Uses a lettuce client the caller owns: this instance opens its own connections on it (with
   * the client's default URI) and closes them, but never shuts the client down. Give the client
   * {@link LettuceLeaseGateway#clientOptions}: otherwise lettuce may silently re-send an in-flight
   * command after a reconnect.
   */
  public static Builder builder(RedisClient client) {
    return new Builder(null, Objects.requireNonNull(client, "client"), null);
  }

  /** As {@link #builder(RedisClient)}, for a cluster client the caller owns. */
  public static Builder builder(RedisClusterClient client) {
    return new Builder(null, null, Objects.requireNonNull(client, "client"));
  }

  /** The port: acquire, inspect, new attempts. */
  public DistributedLeasePort port() {
    return port;
  }

  /** The adapter under the port (unmetered). */
  public RedisLeaseAdapter adapter() {
    return adapter;
  }

  /** The watchdog {@link #withLease} uses; watch your own handles with it too. */
  public LeaseWatchdog watchdog() {
    return watchdog;
  }

  /** The release-signal sleeper, unless it was turned off. */
  public Optional<ReleaseSignals> releaseSignals() {
    return Optional.ofNullable(signals);
  }

  /** Same as {@code port().newAttempt(operationId)}. */
  public LeaseAttempt newAttempt(String operationId) {
    return port.newAttempt(operationId);
  }

  /**
   * The Redis keys of one lease under this instance's namespace and key version.
   *
   * @throws IllegalArgumentException if the purpose or digest is malformed (never showing it)
   */
  public LeaseKeys keys(String purpose, String resourceDigest) {
    return adapter.keys(purpose, resourceDigest);
  }

  /**
   * Acquires (waiting up to the request's {@code waitTimeout}), runs {@code work} with the lease
   * kept renewed by the watchdog, cancels the work's context if the lease is lost, and always
   * releases. See {@link LeaseRunner#withLease}.
   *
   * @throws LeaseException if this instance is closed
   */
  public <T> LeaseResult<T> withLease(LeaseRequest request, LeaseWork<T> work) {
    if (closed.get()) {
      throw new LeaseException("RedisLeases is closed");
    }
    return runner.withLease(request, work);
  }

  /** Closes what this instance opened, newest first; never an injected client. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closeAll(opened);
    log.info("Leasehold closed (namespace={})", adapter.config().namespace());
  }

  private static void closeAll(Deque<AutoCloseable> opened) {
    RuntimeException first = null;
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Exception e) {
        if (first == null) {
          first = new LeaseException("closing Leasehold failed", e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /**
   * Builds a {@link RedisLeases}. Every setting starts at its {@code DEFAULT_*} (here or in
   * {@link RedisLeaseConfig}); {@link #build()} checks them all before opening anything.
   *
   * <p>This class is not threadsafe.
   */
  public static final class Builder {
    private final RedisURI uri;
    private final RedisClient client;
    private final RedisClusterClient clusterClient;
    private boolean cluster;
    private String namespace = RedisLeaseConfig.DEFAULT_NAMESPACE;
    private int keyVersion = RedisLeaseConfig.DEFAULT_KEY_VERSION;
    private Duration driftBudget = RedisLeaseConfig.DEFAULT_DRIFT_BUDGET;
    private Duration contentionRetryAfter = RedisLeaseConfig.DEFAULT_CONTENTION_RETRY_AFTER;
    private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    private FenceMode fenceMode = RedisLeaseConfig.DEFAULT_FENCE_MODE;
    private int replicaAcks;
    private Duration replicaAckTimeout = RedisLeaseConfig.DEFAULT_REPLICA_ACK_TIMEOUT;
    private MeterRegistry meterRegistry;
    private ScheduledExecutorService watchdogExecutor;
    private int maxWatchdogRegistrations = LeaseWatchdog.DEFAULT_MAX_REGISTRATIONS;
    private boolean releaseSignals = DEFAULT_RELEASE_SIGNALS;
    private boolean interruptWorkOnLoss = DEFAULT_INTERRUPT_WORK_ON_LOSS;

    private Builder(RedisURI uri, RedisClient client, RedisClusterClient clusterClient) {
      this.uri = uri;
      this.client = client;
      this.clusterClient = clusterClient;
    }

    /** The URI is a seed node of a Redis Cluster. Only with {@link #builder(RedisURI)}. @return {@code this} */
    public Builder cluster() {
      if (uri == null) {
        throw new IllegalStateException("cluster() only applies to a URI; pass a RedisClusterClient instead");
      }
      this.cluster = true;
      return this;
    }

    /** See {@link RedisLeaseConfig#DEFAULT_NAMESPACE}. @return {@code this} */
    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    /** See {@link RedisLeaseConfig#DEFAULT_KEY_VERSION}. @return {@code this} */
    public Builder keyVersion(int keyVersion) {
      this.keyVersion = keyVersion;
      return this;
    }

    /** See {@link RedisLeaseConfig#DEFAULT_DRIFT_BUDGET}. @return {@code this} */
    public Builder driftBudget(Duration driftBudget) {
      this.driftBudget = driftBudget;
      return this;
    }

    /** See {@link RedisLeaseConfig#DEFAULT_CONTENTION_RETRY_AFTER}. @return {@code this} */
    public Builder contentionRetryAfter(Duration contentionRetryAfter) {
      this.contentionRetryAfter = contentionRetryAfter;
      return this;
    }

    /**
     * The command timeout of the connections this instance opens. Keep it well below the lease
     * TTLs you use. See {@link #DEFAULT_COMMAND_TIMEOUT}. @return {@code this}
     */
    public Builder commandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
      return this;
    }

    /** See {@link RedisLeaseConfig#DEFAULT_FENCE_MODE}. @return {@code this} */
    public Builder fenceMode(FenceMode fenceMode) {
      this.fenceMode = fenceMode;
      return this;
    }

    /** See {@link RedisLeaseConfig.Builder#replicaAck(int, Duration)}. Off by default. @return {@code this} */
    public Builder replicaAck(int replicas, Duration timeout) {
      this.replicaAcks = replicas;
      this.replicaAckTimeout = timeout;
      return this;
    }

    /** Meters the port and its handles (see {@link MeteredLeasePort}). None by default. @return {@code this} */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
      return this;
    }

    /** Renewals run here; never shut down by close. Defaults to the watchdog's own daemon thread. @return {@code this} */
    public Builder watchdogExecutor(ScheduledExecutorService executor) {
      this.watchdogExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** See {@link LeaseWatchdog#DEFAULT_MAX_REGISTRATIONS}. @return {@code this} */
    public Builder maxWatchdogRegistrations(int max) {
      this.maxWatchdogRegistrations = max;
      return this;
    }

    /** See {@link #DEFAULT_RELEASE_SIGNALS}; off, waiters sleep their full jittered retryAfter. @return {@code this} */
    public Builder releaseSignals(boolean releaseSignals) {
      this.releaseSignals = releaseSignals;
      return this;
    }

    /** See {@link #DEFAULT_INTERRUPT_WORK_ON_LOSS}. @return {@code this} */
    public Builder interruptWorkOnLoss(boolean interruptWorkOnLoss) {
      this.interruptWorkOnLoss = interruptWorkOnLoss;
      return this;
    }

    /**
     * Checks the settings, then connects.
     *
     * @throws IllegalArgumentException naming the first setting out of range, before any I/O
     * @throws LeaseException if connecting fails (everything opened so far is closed again)
     */
    public RedisLeases build() {
      if (commandTimeout == null || commandTimeout.isNegative() || commandTimeout.isZero()
          || commandTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException("commandTimeout must be in (0, 1 min] but was " + commandTimeout);
      }
      LeaseWatchdog.Builder watchdogBuilder = LeaseWatchdog.builder().maxRegistrations(maxWatchdogRegistrations);
      // Validates every adapter setting before anything is opened (the gateway is a placeholder).
      configure(RedisLeaseAdapter.builder(Unconnected.INSTANCE)).build();

      Deque<AutoCloseable> opened = new ArrayDeque<>();
      try {
        StatefulConnection<String, String> commands;
        ReleaseSignals signals = null;
        LettuceLeaseGateway gateway;
        String topology;
        if (clusterClient != null || cluster) {
          RedisClusterClient c = clusterClient;
          if (c == null) {
            c = RedisClusterClient.create(uri);
            c.setOptions(ClusterClientOptions.builder(LettuceLeaseGateway.clientOptions(commandTimeout)).build());
            opened.push(c::shutdown);
          } else {
            warnIfReplaying(c.getOptions());
          }
          StatefulRedisClusterConnection<String, String> connection = c.connect();
          opened.push(connection::close);
          // The URI is used as given (RedisURI.builder would drop a Sentinel URI's sentinels).
          connection.setTimeout(commandTimeout);
          commands = connection;
          gateway = LettuceLeaseGateway.over(connection);
          if (releaseSignals) {
            signals = signals(c.connectPubSub());
            opened.push(signals);
          }
          topology = "cluster";
        } else {
          RedisClient c = client;
          if (c == null) {
            c = RedisClient.create(uri);
            c.setOptions(LettuceLeaseGateway.clientOptions(commandTimeout));
            opened.push(c::shutdown);
          } else {
            warnIfReplaying(c.getOptions());
          }
          StatefulRedisConnection<String, String> connection = c.connect();
          opened.push(connection::close);
          connection.setTimeout(commandTimeout);
          commands = connection;
          gateway = LettuceLeaseGateway.over(connection);
          if (releaseSignals) {
            signals = signals(c.connectPubSub());
            opened.push(signals);
          }
          topology = uri != null && uri.getSentinels() != null && !uri.getSentinels().isEmpty() ? "sentinel" : "standalone";
        }
        commands.setTimeout(commandTimeout);
        opened.push(gateway);
        RedisLeaseConfig.Builder config = configure(RedisLeaseAdapter.builder(gateway));
        if (signals != null) {
          config.sleeper(signals);
        }
        RedisLeaseAdapter adapter = config.build();
        if (watchdogExecutor != null) {
          watchdogBuilder.executor(watchdogExecutor);
        }
        LeaseWatchdog watchdog = watchdogBuilder.build();
        opened.push(watchdog);
        MeteredLeasePort metered = meterRegistry == null ? null : new MeteredLeasePort(adapter, meterRegistry);
        DistributedLeasePort port = metered == null ? adapter : metered;
        LeaseRunner runner = new LeaseRunner(port, watchdog, interruptWorkOnLoss,
            metered == null ? null : metered::recordResult);
        log.info("Leasehold opened (namespace={}, keyVersion={}, topology={}, releaseSignals={}, metrics={})",
            namespace, keyVersion, topology, signals != null, metered != null);
        return new RedisLeases(adapter, port, watchdog, signals, runner, opened);
      } catch (RuntimeException e) {
        try {
          closeAll(opened);
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        if (e instanceof LeaseException) {
          throw e;
        }
        throw new LeaseException("could not connect to Redis", e instanceof GatewayException ? e : LettuceFailures.classify(e));
      }
    }

    private ReleaseSignals signals(StatefulRedisPubSubConnection<String, String> pubSub) {
      pubSub.setTimeout(commandTimeout);
      return ReleaseSignals.owning(pubSub);
    }

    private RedisLeaseConfig.Builder configure(RedisLeaseConfig.Builder b) {
      return b.namespace(namespace).keyVersion(keyVersion).driftBudget(driftBudget)
          .contentionRetryAfter(contentionRetryAfter).fenceMode(fenceMode).replicaAck(replicaAcks, replicaAckTimeout);
    }

    private static void warnIfReplaying(ClientOptions options) {
      if (options.getDisconnectedBehavior() != ClientOptions.DisconnectedBehavior.REJECT_COMMANDS) {
        log.warn("the injected lettuce client does not reject commands while disconnected: it may re-send "
            + "an in-flight command after a reconnect; use LettuceLeaseGateway.clientOptions(...)");
      }
    }
  }

  /** A gateway that is never called: it lets the builder validate settings before connecting. */
  private enum Unconnected implements LeaseGateway {
    INSTANCE;

    @Override
    public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode) {
      throw new GatewayException(GatewayException.Failure.NOT_SENT, "not connected");
    }

    @Override
    public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis) {
      throw new GatewayException(GatewayException.Failure.NOT_SENT, "not connected");
    }

    @Override
    public GatewayReply.Change release(LeaseKeys keys, String ownership) {
      throw new GatewayException(GatewayException.Failure.NOT_SENT, "not connected");
    }

    @Override
    public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
      throw new GatewayException(GatewayException.Failure.NOT_SENT, "not connected");
    }

    @Override
    public long waitForReplicas(int replicas, Duration timeout) {
      throw new GatewayException(GatewayException.Failure.NOT_SENT, "not connected");
    }

    @Override
    public void close() {}
  }
}
