package dev.leasehold.chaos;

import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LettuceLeaseGateway;
import io.lettuce.core.RedisURI;
import java.time.Duration;

/**
 * Opens the gateway a worker uses, always through the product path
 * {@link LettuceLeaseGateway#connect} for standalone and Sentinel URIs alike, or
 * {@link LettuceLeaseGateway#connectCluster}. (It once rebuilt
 * the URI with {@code RedisURI.builder(uri)}, which drops a Sentinel URI's sentinels; the
 * Sentinel scenarios are the regression test.)
 */
final class Gateways {
  /** A gateway and what closes it. */
  record Opened(LeaseGateway gateway, AutoCloseable closer) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      closer.close();
    }
  }

  private Gateways() {}

  static Opened connect(RedisURI uri, Duration commandTimeout) {
    return connect(uri, commandTimeout, false);
  }

  /** As {@link #connect(RedisURI, Duration)}; a cluster seed through {@link LettuceLeaseGateway#connectCluster}. */
  static Opened connect(RedisURI uri, Duration commandTimeout, boolean cluster) {
    LettuceLeaseGateway g = cluster ? LettuceLeaseGateway.connectCluster(uri, commandTimeout)
        : LettuceLeaseGateway.connect(uri, commandTimeout);
    return new Opened(g, g::close);
  }
}
