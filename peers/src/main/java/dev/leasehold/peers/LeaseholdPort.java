package dev.leasehold.peers;

import dev.leasehold.redis.RedisLeaseConfig;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.testkit.blackbox.LeasePortLibrary;
import java.time.Duration;

/**
 * Leasehold through {@link RedisLeases}, the production entry point, judged by the black-box lane
 * like any other library (see {@link LeasePortLibrary} for how its outcomes are read).
 */
public final class LeaseholdPort {
  static final String PURPOSE = "peers";
  static final Duration DRIFT_BUDGET = Duration.ofMillis(10);

  private LeaseholdPort() {}

  public static LeasePortLibrary library() {
    return new LeasePortLibrary("leasehold", PURPOSE,
        // The documented key layout (LeaseKeys) under the default namespace.
        digest -> RedisLeaseConfig.DEFAULT_NAMESPACE + ":lease:v" + RedisLeaseConfig.DEFAULT_KEY_VERSION + ":{"
            + PURPOSE + ":" + digest + "}",
        endpoint -> {
          RedisLeases leases = RedisLeases.builder(endpoint.uri()).commandTimeout(endpoint.commandTimeout())
              .driftBudget(DRIFT_BUDGET).build();
          return new LeasePortLibrary.Connection(leases.port(), leases);
        });
  }
}
