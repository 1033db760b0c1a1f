package dev.leasehold.redis;

import dev.leasehold.redis.GatewayException.Failure;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Wraps a gateway and, for the next calls, injects a fault: apply then lose the reply, or fail
 * before sending. Counts the calls that reached the delegate, so a test can assert that nothing
 * was sent.
 */
final class FaultyGateway implements LeaseGateway {
  enum Fault { NONE, LOSE_REPLY, NOT_SENT, OVERLOADED }

  private final LeaseGateway delegate;
  private final Deque<Fault> next = new ArrayDeque<>();
  final AtomicInteger sent = new AtomicInteger();

  FaultyGateway(LeaseGateway delegate) {
    this.delegate = delegate;
  }

  synchronized FaultyGateway then(Fault fault) {
    next.addLast(fault);
    return this;
  }

  private synchronized Fault take() {
    return next.isEmpty() ? Fault.NONE : next.removeFirst();
  }

  private <T> T call(Supplier<T> command) {
    Fault fault = take();
    switch (fault) {
      case NOT_SENT:
        throw new GatewayException(Failure.NOT_SENT, "injected: not connected");
      case OVERLOADED:
        throw new GatewayException(Failure.OVERLOADED, "injected: BUSY");
      default:
        sent.incrementAndGet();
        T reply = command.get();
        if (fault == Fault.LOSE_REPLY) {
          throw new GatewayException(Failure.AMBIGUOUS, "injected: reply lost after the server applied it");
        }
        return reply;
    }
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode) {
    return call(() -> delegate.acquire(keys, ownership, ownerToken, ttlMillis, mode));
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis) {
    return call(() -> delegate.renew(keys, ownership, ttlMillis));
  }

  @Override
  public GatewayReply.Change release(LeaseKeys keys, String ownership) {
    return call(() -> delegate.release(keys, ownership));
  }

  @Override
  public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    return call(() -> delegate.inspect(keys, ownership));
  }

  @Override
  public long waitForReplicas(int replicas, Duration timeout) {
    return call(() -> delegate.waitForReplicas(replicas, timeout));
  }

  @Override
  public void close() {
    delegate.close();
  }
}
