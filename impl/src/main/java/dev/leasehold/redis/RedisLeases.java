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
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
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
  private final OpenedResources opened;
  private final AtomicBoolean closed = new AtomicBoolean();

  RedisLeases(RedisLeaseAdapter adapter, DistributedLeasePort port, LeaseWatchdog watchdog,
      ReleaseSignals signals, LeaseRunner runner, OpenedResources opened) {
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
    return new Builder(Arguments.notNull("uri", uri), null, null);
  }

  /**
   * As {@link #builder(RedisURI)}, from a URI string such as {@code redis://127.0.0.1:6379}.
   *
   * @throws IllegalArgumentException if {@code uri} is null or not a Redis URI (the message never
   *     repeats it: it may carry a password)
   */
  public static Builder builder(String uri) {
    return builder(Arguments.redisUri(uri));
  }

  /**
   * Uses a lettuce client the caller owns: this instance opens its own connections on it (with
   * the client's default URI) and closes them, but never shuts the client down. Give the client
   * {@link LettuceLeaseGateway#clientOptions}: otherwise lettuce may silently re-send an in-flight
   * command after a reconnect.
   */
  public static Builder builder(RedisClient client) {
    return new Builder(null, Arguments.notNull("client", client), null);
  }

  /** As {@link #builder(RedisClient)}, for a cluster client the caller owns. */
  public static Builder builder(RedisClusterClient client) {
    return new Builder(null, null, Arguments.notNull("client", client));
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
    opened.closeAll();
    log.info("Leasehold closed (namespace={})", adapter.config().namespace());
  }

  /**
   * Builds a {@link RedisLeases}. Every setting starts at its {@code DEFAULT_*} (here or in
   * {@link RedisLeaseConfig}); {@link #build()} checks them all before opening anything.
   *
   * <p>This class is not threadsafe.
   */
  public static final class Builder {
    // Package-private, not private: RedisLeasesAssembly reads them when it builds.
    final RedisURI uri;
    final RedisClient client;
    final RedisClusterClient clusterClient;
    boolean cluster;
    SslOptions sslOptions;
    String namespace = RedisLeaseConfig.DEFAULT_NAMESPACE;
    int keyVersion = RedisLeaseConfig.DEFAULT_KEY_VERSION;
    Duration driftBudget = RedisLeaseConfig.DEFAULT_DRIFT_BUDGET;
    Duration contentionRetryAfter = RedisLeaseConfig.DEFAULT_CONTENTION_RETRY_AFTER;
    Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    FenceMode fenceMode = RedisLeaseConfig.DEFAULT_FENCE_MODE;
    Duration counterRetention = RedisLeaseConfig.DEFAULT_COUNTER_RETENTION;
    int replicaAcks;
    Duration replicaAckTimeout = RedisLeaseConfig.DEFAULT_REPLICA_ACK_TIMEOUT;
    MeterRegistry meterRegistry;
    ScheduledExecutorService watchdogExecutor;
    int maxWatchdogRegistrations = LeaseWatchdog.DEFAULT_MAX_REGISTRATIONS;
    boolean releaseSignals = DEFAULT_RELEASE_SIGNALS;
    boolean interruptWorkOnLoss = DEFAULT_INTERRUPT_WORK_ON_LOSS;

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

    /**
     * TLS settings (a trust store, a client certificate) for the client this instance creates from
     * a {@code rediss://} URI. Only with {@link #builder(RedisURI)}: an injected client brings its
     * own. None by default (the JDK's default trust store). @return {@code this}
     */
    public Builder sslOptions(SslOptions sslOptions) {
      if (uri == null) {
        throw new IllegalStateException("sslOptions() only applies to a URI; set them on the injected client instead");
      }
      this.sslOptions = Arguments.notNull("sslOptions", sslOptions);
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

    /** See {@link RedisLeaseConfig#DEFAULT_COUNTER_RETENTION}. @return {@code this} */
    public Builder counterRetention(Duration counterRetention) {
      this.counterRetention = counterRetention;
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
      this.meterRegistry = Arguments.notNull("meterRegistry", meterRegistry);
      return this;
    }

    /**
     * Where the watchdog sends due renewals and judges their replies; never shut down by close.
     * Defaults to the watchdog's own daemon thread. @return {@code this}
     */
    public Builder watchdogExecutor(ScheduledExecutorService executor) {
      this.watchdogExecutor = Arguments.notNull("executor", executor);
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
      return RedisLeasesAssembly.assemble(this);
    }
  }
}
