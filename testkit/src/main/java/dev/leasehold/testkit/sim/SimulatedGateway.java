package dev.leasehold.testkit.sim;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import java.time.Duration;

/**
 * A {@link LeaseGateway} over {@link SimulatedRedis}: the adapter under test talks to it exactly as
 * to {@code LettuceLeaseGateway}. There are no replicas, so WAIT answers 0.
 *
 * <p>This class is threadsafe.
 */
public final class SimulatedGateway implements LeaseGateway {
  private final SimulatedRedis redis;

  public SimulatedGateway(SimulatedRedis redis) {
    this.redis = redis;
  }

  public SimulatedRedis redis() {
    return redis;
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode) {
    return redis.acquire(keys, ownership, ownerToken + ":", ttlMillis, mode);
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis) {
    return redis.renew(keys, ownership, ttlMillis);
  }

  @Override
  public GatewayReply.Change release(LeaseKeys keys, String ownership) {
    return redis.release(keys, ownership);
  }

  @Override
  public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    return redis.inspect(keys, ownership);
  }

  @Override
  public long waitForReplicas(int replicas, Duration timeout) {
    return 0;
  }

  @Override
  public void close() {}
}
