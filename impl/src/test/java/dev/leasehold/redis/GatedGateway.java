package dev.leasehold.redis;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Delegates to another gateway and can hold the next call of an operation at a gate, either
 * before it reaches the server ({@link Where#BEFORE}: sent, not run yet) or after the server ran it
 * ({@link Where#AFTER}: run, reply not delivered yet). The test thread makes other calls meanwhile
 * and then opens the gate, forcing one exact interleaving of two threads.
 *
 * <p>This class is threadsafe.
 */
final class GatedGateway implements LeaseGateway {
  enum Where { BEFORE, AFTER }

  /** One held call: {@link #awaitReached()} until it is at the gate, then {@link #open()}. */
  static final class Gate {
    private final Where where;
    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch open = new CountDownLatch(1);

    private Gate(Where where) {
      this.where = where;
    }

    void awaitReached() throws InterruptedException {
      if (!reached.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("the held call never reached its gate");
      }
    }

    void open() {
      open.countDown();
    }

    private void hold() {
      reached.countDown();
      try {
        if (!open.await(10, TimeUnit.SECONDS)) {
          throw new AssertionError("the gate was never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new GatewayException(GatewayException.Failure.AMBIGUOUS, "interrupted at the gate");
      }
    }
  }

  private final LeaseGateway delegate;
  private final Map<String, Deque<Gate>> gates = new HashMap<>();

  GatedGateway(LeaseGateway delegate) {
    this.delegate = delegate;
  }

  /** Holds the next call of {@code operation} (acquire, renew, release) at {@code where}. */
  synchronized Gate holdNext(String operation, Where where) {
    Gate gate = new Gate(where);
    gates.computeIfAbsent(operation, k -> new ArrayDeque<>()).add(gate);
    return gate;
  }

  private synchronized Gate take(String operation) {
    Deque<Gate> queued = gates.get(operation);
    return queued == null ? null : queued.poll();
  }

  private <T> T call(String operation, Supplier<T> command) {
    Gate gate = take(operation);
    if (gate != null && gate.where == Where.BEFORE) {
      gate.hold();
    }
    T reply = command.get();
    if (gate != null && gate.where == Where.AFTER) {
      gate.hold();
    }
    return reply;
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode, long counterRetentionMillis) {
    return call("acquire", () -> delegate.acquire(keys, ownership, ownerToken, ttlMillis, mode, counterRetentionMillis));
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
    return call("renew", () -> delegate.renew(keys, ownership, ttlMillis, counterRetentionMillis));
  }

  @Override
  public GatewayReply.Change release(LeaseKeys keys, String ownership) {
    return call("release", () -> delegate.release(keys, ownership));
  }

  @Override
  public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    return call("inspect", () -> delegate.inspect(keys, ownership));
  }

  @Override
  public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
    return delegate.waitForReplicas(keys, replicas, timeout);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
