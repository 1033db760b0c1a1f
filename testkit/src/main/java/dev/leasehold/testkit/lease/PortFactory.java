package dev.leasehold.testkit.lease;

import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.redis.RedisLeaseConfig;
import dev.leasehold.testkit.sim.LeaseClock;
import java.security.SecureRandom;
import java.time.Duration;

/**
 * Makes the adapter under test over a gateway and the chain's clocks: the real
 * {@link RedisLeaseAdapter}, or the seed-defect fixture.
 */
@FunctionalInterface
public interface PortFactory {
  DistributedLeasePort create(LeaseGateway gateway, LeaseClock clock, Duration drift, FenceMode mode,
      SecureRandom random, RedisLeaseConfig.Sleeper sleeper);

  /** The implementation in impl/. */
  PortFactory FIXED = replicaAck(0);

  /**
   * The implementation in impl/, asking {@code replicas} replicas to acknowledge each grant (WAIT,
   * 100 ms); 0 asks for none.
   */
  static PortFactory replicaAck(int replicas) {
    return (gateway, clock, drift, mode, random, sleeper) -> RedisLeaseAdapter.builder(gateway)
        .driftBudget(drift)
        .fenceMode(mode)
        .replicaAck(replicas, Duration.ofMillis(100))
        .monotonicNanos(clock.monotonic())
        .wallClock(clock.wall())
        .random(random)
        .sleeper(sleeper)
        .build();
  }
}
