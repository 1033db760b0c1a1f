package dev.leasehold.redis;

import java.time.Duration;

/** Delegates to another gateway; tests override single replies (token 0, PTTL -1, WAIT answers). */
class StubGateway implements LeaseGateway {
  final LeaseGateway delegate;
  volatile long replicasAcked;
  volatile int waits;

  StubGateway(LeaseGateway delegate) {
    this.delegate = delegate;
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode, long counterRetentionMillis) {
    return delegate.acquire(keys, ownership, ownerToken, ttlMillis, mode, counterRetentionMillis);
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
    return delegate.renew(keys, ownership, ttlMillis, counterRetentionMillis);
  }

  @Override
  public GatewayReply.Change release(LeaseKeys keys, String ownership) {
    return delegate.release(keys, ownership);
  }

  @Override
  public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    return delegate.inspect(keys, ownership);
  }

  @Override
  public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
    waits++;
    return replicasAcked;
  }

  @Override
  public void close() {
    delegate.close();
  }
}
