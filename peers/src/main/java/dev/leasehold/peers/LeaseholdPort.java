package dev.leasehold.peers;

import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.RedisLeaseConfig;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.testkit.blackbox.LeasePortLibrary;
import dev.leasehold.testkit.blackbox.LockLibrary.Endpoint;
import java.time.Duration;

/**
 * Leasehold through {@link RedisLeases}, the production entry point, judged by the black-box lane
 * like any other library (see {@link LeasePortLibrary} for how its outcomes are read); and what its
 * adapters' ports share: the connection and the key of a lease.
 */
public final class LeaseholdPort {
  static final String PURPOSE = "peers";
  static final Duration DRIFT_BUDGET = Duration.ofMillis(10);

  private LeaseholdPort() {}

  public static LeasePortLibrary library() {
    return new LeasePortLibrary("leasehold", PURPOSE, digest -> key(PURPOSE, digest), endpoint -> {
      RedisLeases leases = connect(endpoint);
      return new LeasePortLibrary.Connection(leases.port(), leases);
    });
  }

  /** Leases at {@code endpoint}, with its command timeout and the lane's drift budget; close after use. */
  static RedisLeases connect(Endpoint endpoint) {
    return RedisLeases.builder(endpoint.uri()).commandTimeout(endpoint.commandTimeout()).driftBudget(DRIFT_BUDGET)
        .build();
  }

  /** The key of the lease of {@code purpose} on {@code resource}, as adapters name it: its SHA-256 digest. */
  static String keyOfResource(String purpose, String resource) {
    return key(purpose, ResourceDigests.sha256(resource));
  }

  /** The documented key layout (LeaseKeys) under the default namespace. */
  private static String key(String purpose, String digest) {
    return RedisLeaseConfig.DEFAULT_NAMESPACE + ":lease:v" + RedisLeaseConfig.DEFAULT_KEY_VERSION + ":{" + purpose
        + ":" + digest + "}";
  }
}
