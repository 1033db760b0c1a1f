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
 * was sent. The faults are named like the kit's ({@code dev.leasehold.testkit.fault.Fault}); this
 * small copy exists because impl's tests cannot depend on the kit, which depends on impl.
 */
final class StubFaultGateway implements LeaseGateway {
  enum Injected { NONE, LOSE_REPLY, REFUSE_BEFORE_SEND, REFUSE }

  private final LeaseGateway delegate;
  private final Deque<Injected> next = new ArrayDeque<>();
  final AtomicInteger sent = new AtomicInteger();

  StubFaultGateway(LeaseGateway delegate) {
    this.delegate = delegate;
  }

  synchronized StubFaultGateway then(Injected fault) {
    next.addLast(fault);
    return this;
  }

  private synchronized Injected take() {
    return next.isEmpty() ? Injected.NONE : next.removeFirst();
  }

  private <T> T call(Supplier<T> command) {
    Injected fault = take();
    switch (fault) {
      case REFUSE_BEFORE_SEND:
        throw new GatewayException(Failure.NOT_SENT, "injected: not connected");
      case REFUSE:
        throw new GatewayException(Failure.OVERLOADED, "injected: BUSY");
      default:
        sent.incrementAndGet();
        T reply = command.get();
        if (fault == Injected.LOSE_REPLY) {
          throw new GatewayException(Failure.AMBIGUOUS, "injected: reply lost after the server applied it");
        }
        return reply;
    }
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode, long counterRetentionMillis) {
    return call(() -> delegate.acquire(keys, ownership, ownerToken, ttlMillis, mode, counterRetentionMillis));
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
    return call(() -> delegate.renew(keys, ownership, ttlMillis, counterRetentionMillis));
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
  public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
    return call(() -> delegate.waitForReplicas(keys, replicas, timeout));
  }

  @Override
  public void close() {
    delegate.close();
  }
}
