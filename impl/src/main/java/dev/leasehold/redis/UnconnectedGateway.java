package dev.leasehold.redis;

import java.time.Duration;

/**
 * A gateway that is never called: {@link RedisLeases.Builder#build()} checks every adapter setting
 * against it, so that a bad setting fails before anything is opened.
 *
 * <p>This enum is stateless and threadsafe.
 */
enum UnconnectedGateway implements LeaseGateway {
  INSTANCE;

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode, long counterRetentionMillis) {
    throw new GatewayException(GatewayException.Failure.NOT_SENT, "not connected");
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
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
  public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
    throw new GatewayException(GatewayException.Failure.NOT_SENT, "not connected");
  }

  @Override
  public void close() {}
}
