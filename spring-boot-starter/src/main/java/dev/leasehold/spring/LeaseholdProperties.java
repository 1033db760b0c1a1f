package dev.leasehold.spring;

import dev.leasehold.redis.FenceMode;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code leasehold.*} properties. A setting left unset (null here) keeps the library's own
 * default ({@code RedisLeases.DEFAULT_*}, {@code RedisLeaseConfig.DEFAULT_*}), so there is one
 * place for each default; {@code additional-spring-configuration-metadata.json} shows them to the
 * IDE, and a test holds the two equal. Checked at start-up by {@link LeaseholdSettings}, before any
 * connection, with a message naming the property.
 *
 * <p>This record is immutable.
 *
 * <p>The {@code @param} texts below are the IDE's descriptions (the configuration processor copies
 * them into the metadata), hence plain sentences without Javadoc tags.
 *
 * @param enabled Whether to auto-configure a RedisLeases at all.
 * @param uri The Redis to connect to: redis://host:port, rediss://host:port for TLS, or
 *     redis-sentinel://host:port,host:port#master for Sentinel. Credentials go in the URI; it is
 *     never logged or shown. Either this or leasehold.sentinel.*.
 * @param cluster Whether leasehold.uri is a seed node of a Redis Cluster.
 * @param sentinel The Sentinel deployment, instead of leasehold.uri.
 * @param namespace The first part of every key: a lowercase letter or digit, then up to 63 of
 *     a-z, 0-9, '.', '_', '-'.
 * @param keyVersion The key layout version, part of every key, 1 to 999.
 * @param driftBudget How far the client's and the server's clocks may drift apart over one lease;
 *     subtracted from every validity budget, 0 to 1 min.
 * @param commandTimeout How long a command may wait for its reply before its outcome is
 *     Indeterminate, up to 1 min; keep it well below the lease TTLs used.
 * @param contentionRetryAfter The retryAfter reported when the server gives no positive PTTL, 1 ms to 1 min.
 * @param fenceMode How fencing tokens are made: clock-floor keeps them rising across a restart or
 *     failover that loses the counter; counter counts up by one.
 * @param counterRetention With clock-floor, how long the fencing counter outlives the lease key,
 *     1 ms to 365 days; a plain counter never expires.
 * @param replicaAck The replicas that must acknowledge a grant before its token counts as durable.
 * @param releaseSignals Whether waiters subscribe to the release channel, so that a release wakes them at once.
 */
@ConfigurationProperties("leasehold")
public record LeaseholdProperties(
    @DefaultValue("true") boolean enabled,
    String uri,
    boolean cluster,
    @DefaultValue Sentinel sentinel,
    String namespace,
    Integer keyVersion,
    Duration driftBudget,
    Duration commandTimeout,
    Duration contentionRetryAfter,
    FenceMode fenceMode,
    Duration counterRetention,
    @DefaultValue ReplicaAck replicaAck,
    Boolean releaseSignals) {

  /**
   * A Sentinel deployment: the master's name and the sentinels to ask for it.
   *
   * @param master The name the sentinels know the master by.
   * @param nodes The sentinels, as host:port ([::1]:26379 for IPv6).
   */
  public record Sentinel(String master, List<String> nodes) {
    /** Whether any Sentinel setting was given. */
    boolean configured() {
      return (master != null && !master.isBlank()) || (nodes != null && !nodes.isEmpty());
    }
  }

  /**
   * {@code WAIT replicas timeout} after each grant; a grant acknowledged by fewer replicas reports
   * {@code EFFICIENCY_ONLY}. Off while {@code replicas} is 0.
   *
   * @param replicas How many replicas must acknowledge a grant, 0 to 16; 0 sends no WAIT.
   * @param timeout How long WAIT may block, at least 1 ms when replicas is above 0, at most 10 s.
   */
  public record ReplicaAck(@DefaultValue("0") int replicas, Duration timeout) {}
}
