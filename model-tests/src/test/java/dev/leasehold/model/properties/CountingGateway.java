package dev.leasehold.model.properties;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A gateway that counts the calls it passes on: "before any I/O" is a count that did not move.
 *
 * <p>This class is threadsafe if its delegate is.
 */
final class CountingGateway implements LeaseGateway {
  private final LeaseGateway delegate;
  private final AtomicLong calls = new AtomicLong();

  CountingGateway(LeaseGateway delegate) {
    this.delegate = delegate;
  }

  long calls() {
    return calls.get();
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode) {
    calls.incrementAndGet();
    return delegate.acquire(keys, ownership, ownerToken, ttlMillis, mode);
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis) {
    calls.incrementAndGet();
    return delegate.renew(keys, ownership, ttlMillis);
  }

  @Override
  public GatewayReply.Change release(LeaseKeys keys, String ownership) {
    calls.incrementAndGet();
    return delegate.release(keys, ownership);
  }

  @Override
  public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    calls.incrementAndGet();
    return delegate.inspect(keys, ownership);
  }

  @Override
  public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
    calls.incrementAndGet();
    return delegate.waitForReplicas(keys, replicas, timeout);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
