package dev.leasehold.testing;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseConfig;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * A small in-memory {@link LeaseGateway} that follows the four scripts, on a {@link Clock} that is
 * either virtual (advanced by its sleeper) or the real monotonic one. Faults are queued per call:
 * {@link #loseNextReply(String, boolean)} makes the next call of an operation fail ambiguously,
 * applied or not. Keep it small: the model tests have the full simulator.
 *
 * <p>This class is threadsafe (every method is synchronized).
 */
public final class FakeRedis implements LeaseGateway {
  /** A monotonic clock in ns. The virtual one moves only when slept on or advanced. */
  public static final class Clock implements LongSupplier, RedisLeaseConfig.Sleeper {
    private final boolean virtual;
    private long now = 1_000_000_000L;
    private final List<Duration> sleeps = new ArrayList<>();
    private final List<Runnable> onSleep = new ArrayList<>();

    private Clock(boolean virtual) {
      this.virtual = virtual;
    }

    public static Clock virtual() {
      return new Clock(true);
    }

    public static Clock real() {
      return new Clock(false);
    }

    @Override
    public synchronized long getAsLong() {
      return virtual ? now : System.nanoTime();
    }

    public synchronized void advance(Duration d) {
      if (!virtual) {
        throw new IllegalStateException("a real clock cannot be advanced");
      }
      now += d.toNanos();
    }

    /** Records the sleep, runs the sleep hooks (while time stands), then advances (virtual) or sleeps (real). */
    @Override
    public void sleep(LeaseKeys keys, Duration duration) throws InterruptedException {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      List<Runnable> hooks;
      synchronized (this) {
        sleeps.add(duration);
        hooks = List.copyOf(onSleep);
      }
      hooks.forEach(Runnable::run);
      if (virtual) {
        advance(duration);
      } else {
        Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
      }
    }

    public synchronized List<Duration> sleeps() {
      return List.copyOf(sleeps);
    }

    /** Runs {@code hook} at the start of every sleep (for example to interrupt, or to renew a holder). */
    public synchronized void onSleep(Runnable hook) {
      onSleep.add(hook);
    }
  }

  private record Entry(String value, long expiresAt) {}

  private final Clock clock;
  private final Map<String, Entry> leases = new HashMap<>();
  private final Map<String, Long> fences = new HashMap<>();
  private final Map<String, Deque<GatewayException>> faults = new HashMap<>();
  private final Map<String, Deque<Boolean>> applyFaulted = new HashMap<>();
  private final Map<String, AtomicInteger> calls = new HashMap<>();
  private final List<java.util.function.Consumer<String>> onCall = new ArrayList<>();
  private final List<java.util.function.Consumer<String>> onApplied = new ArrayList<>();

  public FakeRedis(Clock clock) {
    this.clock = clock;
  }

  public Clock clock() {
    return clock;
  }

  /** The next call of {@code operation} (acquire, renew, release, inspect) has its reply lost; {@code applied} says whether it ran. */
  public synchronized void loseNextReply(String operation, boolean applied) {
    faults.computeIfAbsent(operation, k -> new ArrayDeque<>())
        .add(new GatewayException(GatewayException.Failure.AMBIGUOUS, "reply lost (fake)"));
    applyFaulted.computeIfAbsent(operation, k -> new ArrayDeque<>()).add(applied);
  }

  /** The next call of {@code operation} fails with {@code failure} without running. */
  public synchronized void failNext(String operation, GatewayException.Failure failure) {
    faults.computeIfAbsent(operation, k -> new ArrayDeque<>()).add(new GatewayException(failure, "injected (fake)"));
    applyFaulted.computeIfAbsent(operation, k -> new ArrayDeque<>()).add(false);
  }

  /** Runs {@code hook} with the operation's name at the start of every call (for example to interrupt). */
  public synchronized void onCall(java.util.function.Consumer<String> hook) {
    onCall.add(hook);
  }

  /** Runs {@code hook} with the operation's name after the call ran and before its reply (or lost reply) returns. */
  public synchronized void onApplied(java.util.function.Consumer<String> hook) {
    onApplied.add(hook);
  }

  public synchronized int calls(String operation) {
    AtomicInteger n = calls.get(operation);
    return n == null ? 0 : n.get();
  }

  /** Deletes a lease from outside, as an operator or an eviction would. */
  public synchronized void delete(LeaseKeys keys) {
    leases.remove(keys.lease());
  }

  /** The stored value (secret) or null. */
  public synchronized String value(LeaseKeys keys) {
    Entry e = live(keys);
    return e == null ? null : e.value();
  }

  public synchronized long fence(LeaseKeys keys) {
    return fences.getOrDefault(keys.fence(), 0L);
  }

  private Entry live(LeaseKeys keys) {
    Entry e = leases.get(keys.lease());
    if (e != null && clock.getAsLong() - e.expiresAt() >= 0) {
      leases.remove(keys.lease());
      return null;
    }
    return e;
  }

  private long pttl(Entry e) {
    return Math.max(0, (e.expiresAt() - clock.getAsLong()) / 1_000_000);
  }

  /** Counts the call; throws a queued fault before (not applied) or after (applied) running {@code body}. */
  private <T> T call(String operation, java.util.function.Supplier<T> body) {
    calls.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet();
    onCall.forEach(hook -> hook.accept(operation));
    Deque<GatewayException> queued = faults.get(operation);
    GatewayException fault = queued == null ? null : queued.poll();
    if (fault == null) {
      T reply = body.get();
      onApplied.forEach(hook -> hook.accept(operation));
      return reply;
    }
    if (applyFaulted.get(operation).poll()) {
      body.get();
      onApplied.forEach(hook -> hook.accept(operation));
    }
    throw fault;
  }

  @Override
  public synchronized GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis,
      FenceMode mode, long counterRetentionMillis) {
    return call("acquire", () -> {
      Entry e = live(keys);
      if (e == null) {
        long token = fences.merge(keys.fence(), 1L, Long::sum);
        leases.put(keys.lease(), new Entry(ownership, clock.getAsLong() + ttlMillis * 1_000_000));
        return new GatewayReply.Granted(token);
      }
      if (e.value().equals(ownership)) {
        return new GatewayReply.Replayed(fences.getOrDefault(keys.fence(), 0L), pttl(e));
      }
      return new GatewayReply.HeldByOther(pttl(e), e.value().startsWith(ownerToken + ":"));
    });
  }

  @Override
  public synchronized GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
    return call("renew", () -> {
      Entry e = live(keys);
      if (e == null) {
        return GatewayReply.Change.ABSENT;
      }
      if (!e.value().equals(ownership)) {
        return GatewayReply.Change.OTHER;
      }
      leases.put(keys.lease(), new Entry(ownership, clock.getAsLong() + ttlMillis * 1_000_000));
      return GatewayReply.Change.APPLIED;
    });
  }

  @Override
  public synchronized GatewayReply.Change release(LeaseKeys keys, String ownership) {
    return call("release", () -> {
      Entry e = live(keys);
      if (e == null) {
        return GatewayReply.Change.ABSENT;
      }
      if (!e.value().equals(ownership)) {
        return GatewayReply.Change.OTHER;
      }
      leases.remove(keys.lease());
      return GatewayReply.Change.APPLIED;
    });
  }

  @Override
  public synchronized GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    return call("inspect", () -> {
      Entry e = live(keys);
      if (e == null) {
        return new GatewayReply.Vacant();
      }
      return new GatewayReply.Occupied(e.value().equals(ownership), pttl(e), fences.getOrDefault(keys.fence(), 0L));
    });
  }

  @Override
  public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
    return 0;
  }

  @Override
  public void close() {}
}
