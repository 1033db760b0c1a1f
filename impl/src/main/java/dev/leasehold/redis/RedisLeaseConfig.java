package dev.leasehold.redis;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The settings of a {@link RedisLeaseAdapter}. Build one with {@link RedisLeaseAdapter#builder(LeaseGateway)}.
 *
 * <p>This record is immutable.
 *
 * @param gateway where the scripts run
 * @param namespace the first part of every key
 * @param keyVersion the key layout version, part of every key
 * @param driftBudget how far the client's and the server's clocks may drift apart over one lease;
 *     subtracted from every budget, so a TTL is only accepted if the whole milliseconds sent are above it
 * @param contentionRetryAfter the {@code retryAfter} reported when the server gives no positive PTTL
 * @param fenceMode how ACQUIRE computes fencing tokens
 * @param counterRetention with {@link FenceMode#CLOCK_FLOOR}, how long the fencing counter outlives
 *     the lease key (ACQUIRE and RENEW set both); sent in whole milliseconds. Ignored with
 *     {@link FenceMode#COUNTER}, whose counter must never expire
 * @param replicaAcks replicas that must acknowledge a grant (with {@code WAIT}) before its token
 *     counts as durable; 0 skips the extra round trip
 * @param replicaAckTimeout how long {@code WAIT} may block; sent in whole milliseconds, so at least
 *     1 ms when {@code replicaAcks > 0} ({@code WAIT n 0} would block for ever)
 * @param monotonicNanos the monotonic clock budgets are measured on
 * @param wallClock the clock {@code observedServerExpiry} is reported on
 * @param random the source of owner tokens
 * @param sleeper how waiting sleeps (a test passes virtual time)
 */
public record RedisLeaseConfig(
    LeaseGateway gateway,
    String namespace,
    int keyVersion,
    Duration driftBudget,
    Duration contentionRetryAfter,
    FenceMode fenceMode,
    Duration counterRetention,
    int replicaAcks,
    Duration replicaAckTimeout,
    LongSupplier monotonicNanos,
    Clock wallClock,
    SecureRandom random,
    Sleeper sleeper) {

  /** Defaults to {@code leasehold}. */
  public static final String DEFAULT_NAMESPACE = "leasehold";
  /** Defaults to 1. */
  public static final int DEFAULT_KEY_VERSION = 1;
  /** Defaults to 10 ms. */
  public static final Duration DEFAULT_DRIFT_BUDGET = Duration.ofMillis(10);
  /** Defaults to 50 ms. */
  public static final Duration DEFAULT_CONTENTION_RETRY_AFTER = Duration.ofMillis(50);
  /** Defaults to {@link FenceMode#CLOCK_FLOOR}: tokens keep rising across a restart that loses the counter. */
  public static final FenceMode DEFAULT_FENCE_MODE = FenceMode.CLOCK_FLOOR;
  /**
   * Defaults to 60 min: a resource nobody holds leaves no key an hour after its lease ended, and
   * tokens keep rising across any backward step of the server clock shorter than that.
   */
  public static final Duration DEFAULT_COUNTER_RETENTION = Duration.ofMinutes(60);
  /** Defaults to 100 ms. */
  public static final Duration DEFAULT_REPLICA_ACK_TIMEOUT = Duration.ofMillis(100);

  /**
   * Sleeps between tries of a waiting {@code tryAcquire}. It may return early, for example when the
   * lease's release channel ({@link LeaseKeys#releaseChannel()}) announces a release: the loop
   * then simply tries again. {@link Thread#sleep} by default; tests pass virtual time.
   */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(LeaseKeys keys, Duration duration) throws InterruptedException;
  }

  /** @throws IllegalArgumentException naming the first setting that is missing or out of range */
  public RedisLeaseConfig {
    require(gateway != null, "gateway must not be null");
    require(namespace != null, "namespace must not be null");
    require(LeaseKeys.NAMESPACE.matcher(namespace).matches(),
        "namespace must match [a-z0-9][a-z0-9._-]{0,63}");
    require(keyVersion >= 1 && keyVersion <= 999, "keyVersion must be in 1..999 but was " + keyVersion);
    require(driftBudget != null && !driftBudget.isNegative() && driftBudget.compareTo(Duration.ofMinutes(1)) <= 0,
        "driftBudget must be in 0..1 min but was " + driftBudget);
    // Compared as durations, never converted first: an extreme one must not overflow.
    require(contentionRetryAfter != null && contentionRetryAfter.compareTo(Duration.ofMillis(1)) >= 0
        && contentionRetryAfter.compareTo(Duration.ofMinutes(1)) <= 0,
        "contentionRetryAfter must be in 1 ms..1 min but was " + contentionRetryAfter);
    require(fenceMode != null, "fenceMode must not be null");
    // Judged as sent: whole milliseconds, and 0 would tell the scripts to keep the counter for ever.
    require(counterRetention != null && counterRetention.compareTo(Duration.ofMillis(1)) >= 0
        && counterRetention.compareTo(Duration.ofDays(365)) <= 0,
        "counterRetention must be in 1 ms..365 days but was " + counterRetention);
    require(replicaAcks >= 0 && replicaAcks <= 16, "replicaAcks must be in 0..16 but was " + replicaAcks);
    require(replicaAckTimeout != null && !replicaAckTimeout.isNegative()
        && replicaAckTimeout.compareTo(Duration.ofSeconds(10)) <= 0,
        "replicaAckTimeout must be in 0..10 s but was " + replicaAckTimeout);
    // Judged as sent: WAIT takes whole ms, and WAIT n 0 blocks until n replicas answer, for ever
    // if one is down, with every later command of the connection queued behind it.
    require(replicaAcks == 0 || replicaAckTimeout.toMillis() >= 1,
        "replicaAckTimeout is sent to WAIT in whole milliseconds (" + replicaAckTimeout.toMillis()
            + " ms) and WAIT 0 blocks until the replicas answer; it must be at least 1 ms when replicaAcks > 0,"
            + " but was " + replicaAckTimeout);
    require(monotonicNanos != null, "monotonicNanos must not be null");
    require(wallClock != null, "wallClock must not be null");
    require(random != null, "random must not be null");
    require(sleeper != null, "sleeper must not be null");
  }

  /**
   * The TTL to send, in whole ms, checked against the drift budget before any I/O. The check is on
   * what is sent, not on {@code ttl}: 20.5 ms is above a 20 ms drift, but the 20 ms sent leaves no
   * budget, so the key and a fencing token would be created for a handle LOST at birth (and a renew
   * would cut the lease to 20 ms). The seed system found a TTL at the drift only after the script ran.
   *
   * @throws IllegalArgumentException naming {@code field}
   */
  public long ttlMillis(String field, Duration ttl) {
    if (ttl == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0 but was " + ttl);
    }
    if (ttl.compareTo(dev.leasehold.lease.LeaseRequest.MAX_LEASE_TTL) > 0) {
      throw new IllegalArgumentException(
          field + " must be <= " + dev.leasehold.lease.LeaseRequest.MAX_LEASE_TTL + " but was " + ttl);
    }
    long sentMs = ttl.toMillis();
    if (Duration.ofMillis(sentMs).compareTo(driftBudget) <= 0) {
      throw new IllegalArgumentException(field + " is sent in whole milliseconds (" + sentMs
          + " ms) and must be above the drift budget " + driftBudget + ", but was " + ttl);
    }
    return sentMs;
  }

  /** The counter's retention the scripts are sent, in ms: 0 (no TTL) unless {@link FenceMode#CLOCK_FLOOR}. */
  long counterRetentionMillis() {
    return fenceMode == FenceMode.CLOCK_FLOOR ? counterRetention.toMillis() : 0;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /**
   * Builds a {@link RedisLeaseConfig}; every setting starts at its {@code DEFAULT_*}.
   *
   * <p>This class is not threadsafe.
   */
  public static final class Builder {
    private final LeaseGateway gateway;
    private String namespace = DEFAULT_NAMESPACE;
    private int keyVersion = DEFAULT_KEY_VERSION;
    private Duration driftBudget = DEFAULT_DRIFT_BUDGET;
    private Duration contentionRetryAfter = DEFAULT_CONTENTION_RETRY_AFTER;
    private FenceMode fenceMode = DEFAULT_FENCE_MODE;
    private Duration counterRetention = DEFAULT_COUNTER_RETENTION;
    private int replicaAcks;
    private Duration replicaAckTimeout = DEFAULT_REPLICA_ACK_TIMEOUT;
    private LongSupplier monotonicNanos = System::nanoTime;
    private Clock wallClock = Clock.systemUTC();
    private SecureRandom random = new SecureRandom();
    private Sleeper sleeper = (keys, duration) -> Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);

    Builder(LeaseGateway gateway) {
      require(gateway != null, "gateway must not be null");
      this.gateway = gateway;
    }

    /** See {@link #DEFAULT_NAMESPACE}. @return {@code this} */
    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    /** See {@link #DEFAULT_KEY_VERSION}. @return {@code this} */
    public Builder keyVersion(int keyVersion) {
      this.keyVersion = keyVersion;
      return this;
    }

    /** See {@link #DEFAULT_DRIFT_BUDGET}. @return {@code this} */
    public Builder driftBudget(Duration driftBudget) {
      this.driftBudget = driftBudget;
      return this;
    }

    /** See {@link #DEFAULT_CONTENTION_RETRY_AFTER}. @return {@code this} */
    public Builder contentionRetryAfter(Duration contentionRetryAfter) {
      this.contentionRetryAfter = contentionRetryAfter;
      return this;
    }

    /** See {@link #DEFAULT_FENCE_MODE}. @return {@code this} */
    public Builder fenceMode(FenceMode fenceMode) {
      this.fenceMode = fenceMode;
      return this;
    }

    /** See {@link #DEFAULT_COUNTER_RETENTION}. @return {@code this} */
    public Builder counterRetention(Duration counterRetention) {
      this.counterRetention = counterRetention;
      return this;
    }

    /**
     * After each grant, {@code WAIT replicas timeout}; a handle whose grant was acknowledged by
     * fewer replicas reports {@code EFFICIENCY_ONLY}. Off (0) by default. @return {@code this}
     */
    public Builder replicaAck(int replicas, Duration timeout) {
      this.replicaAcks = replicas;
      this.replicaAckTimeout = timeout;
      return this;
    }

    /** Defaults to {@code System::nanoTime}. @return {@code this} */
    public Builder monotonicNanos(LongSupplier monotonicNanos) {
      this.monotonicNanos = monotonicNanos;
      return this;
    }

    /** Defaults to {@code Clock.systemUTC()}. @return {@code this} */
    public Builder wallClock(Clock wallClock) {
      this.wallClock = wallClock;
      return this;
    }

    /** Defaults to a new {@link SecureRandom}. @return {@code this} */
    public Builder random(SecureRandom random) {
      this.random = random;
      return this;
    }

    /** Defaults to {@link Thread#sleep}. @return {@code this} */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = sleeper;
      return this;
    }

    /** @throws IllegalArgumentException naming the first setting out of range */
    public RedisLeaseAdapter build() {
      return new RedisLeaseAdapter(new RedisLeaseConfig(gateway, namespace, keyVersion, driftBudget,
          contentionRetryAfter, fenceMode, counterRetention, replicaAcks, replicaAckTimeout, monotonicNanos, wallClock, random, sleeper));
    }
  }
}
