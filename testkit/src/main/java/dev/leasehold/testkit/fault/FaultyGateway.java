package dev.leasehold.testkit.fault;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Wraps the simulated or the lettuce gateway and injects the faults armed with {@link #arm}: each
 * armed fault hits the next call, in order. A delayed request is kept and runs on the delegate when
 * {@link #applyLate} is called, after the client already got AMBIGUOUS: a late application. A call
 * that fails throws what the lettuce gateway throws for one of lettuce's exceptions of that fault
 * ({@link LettuceFaults}).
 *
 * <p>This class is threadsafe.
 */
public final class FaultyGateway implements LeaseGateway {
  /** A request the client gave up on that has not reached the server yet. */
  public record Delayed(String kind, String ownership, long ttlMillis, Runnable apply) {}

  /**
   * One call the adapter made, the fault it met (null: none) and the chain's server time at its
   * send ({@link #stampCallsWith}); what trace validation reads. A WAIT is kind {@code wait}, with
   * the replicas asked for in {@code ttlMillis} and those that acknowledged in {@code answered}
   * (-1 when it failed); every other call has {@code answered} -1.
   */
  public record Call(String kind, long ttlMillis, Fault fault, long sentAt, long answered) {}

  private final LeaseGateway delegate;
  private final Deque<Fault.Armed> armed = new ArrayDeque<>();
  private final List<Delayed> delayed = new ArrayList<>();
  private final List<Call> calls = new ArrayList<>();
  /** How many failures were thrown: which of lettuce's shapes of its fault the next one takes. */
  private final AtomicLong shapes = new AtomicLong();
  private volatile Consumer<String> inFlight = kind -> { };
  private volatile LongConsumer passTime = nanos -> {
    throw new IllegalStateException("a slow reply needs the chain's clock: call passTimeWith first");
  };

  private volatile LongSupplier stamp = () -> {
    throw new IllegalStateException("calls are stamped with the chain's clock: call stampCallsWith first");
  };

  public FaultyGateway(LeaseGateway delegate) {
    this.delegate = delegate;
  }

  /**
   * Runs {@code observer} inside every mutating call, after the server had its chance to apply it
   * (or the fault stopped it) and before the client hears back: the window in which another thread
   * may ask the handle what it believes. The observer gets the call's kind.
   */
  public void whileInFlight(Consumer<String> observer) {
    this.inFlight = observer;
  }

  /** How a {@link Fault#SLOW_REPLY} lets time pass between the server's step and the reply. */
  public void passTimeWith(LongConsumer clock) {
    this.passTime = clock;
  }

  /** Where each {@link Call}'s {@code sentAt} comes from (the chain's server clock); required before any call. */
  public void stampCallsWith(LongSupplier clock) {
    this.stamp = clock;
  }

  public void arm(Fault fault) {
    arm(new Fault.Armed(fault, 0));
  }

  public synchronized void arm(Fault.Armed fault) {
    armed.addLast(fault);
  }

  public synchronized int armedCount() {
    return armed.size();
  }

  public synchronized boolean isArmed(Fault fault) {
    return armed.stream().anyMatch(a -> a.fault() == fault);
  }

  /** The calls made since the last drain, oldest first. */
  public synchronized List<Call> drainCalls() {
    List<Call> out = List.copyOf(calls);
    calls.clear();
    return out;
  }

  public synchronized List<Delayed> delayed() {
    return List.copyOf(delayed);
  }

  /** The delayed request {@code index} reaches the server now; its reply goes nowhere. */
  public Delayed applyLate(int index) {
    Delayed d;
    synchronized (this) {
      d = delayed.remove(index);
    }
    try {
      d.apply().run();
    } catch (GatewayException ignored) {
      // The client stopped listening long ago; whatever the server said is lost.
    }
    return d;
  }

  private synchronized Fault.Armed next(String kind, long ttl) {
    Fault.Armed fault = armed.pollFirst();
    calls.add(new Call(kind, ttl, fault == null ? null : fault.fault(), stamp.getAsLong(), -1));
    return fault;
  }

  /**
   * One call: at its send, its server step and its reply it passes a point of the
   * {@link Interleaving} it runs in, if any (a lane of a concurrent step waits there for its turn).
   */
  private <T> T call(String kind, String ownership, long ttl, Supplier<T> send, boolean mutating) {
    Interleaving.point(kind + ":send");
    Fault.Armed armedFault = next(kind, ttl);
    Fault fault = armedFault == null ? null : armedFault.fault();
    Runnable observe = mutating ? () -> inFlight.accept(kind) : () -> { };
    Interleaving.point(kind + ":server");
    if (fault == null) {
      T reply = send.get();
      observe.run();
      Interleaving.point(kind + ":reply");
      return reply;
    }
    switch (fault) {
      case SLOW_REPLY:
        T slow = send.get();
        observe.run();
        passTime.accept(armedFault.nanos());
        Interleaving.point(kind + ":reply");
        return slow;
      case REFUSE_BEFORE_SEND, REFUSE, REFUSE_LASTING:
        break;
      case LOSE_REPLY:
        send.get();
        break;
      case TIMEOUT:
        if (mutating) {
          synchronized (this) {
            delayed.add(new Delayed(kind, ownership, ttl, send::get));
          }
        }
        break;
      default:
        throw new IllegalStateException("unknown fault " + fault);
    }
    observe.run();
    GatewayException failure = LettuceFaults.failure(fault, shapes.getAndIncrement());
    Interleaving.point(kind + ":reply");
    throw failure;
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode, long counterRetentionMillis) {
    return call("acquire", ownership, ttlMillis, () -> delegate.acquire(keys, ownership, ownerToken, ttlMillis, mode, counterRetentionMillis), true);
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
    return call("renew", ownership, ttlMillis, () -> delegate.renew(keys, ownership, ttlMillis, counterRetentionMillis), true);
  }

  @Override
  public GatewayReply.Change release(LeaseKeys keys, String ownership) {
    return call("release", ownership, 0, () -> delegate.release(keys, ownership), true);
  }

  @Override
  public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    // A late read-only request changes nothing, so a delayed inspect is not kept.
    return call("inspect", ownership, 0, () -> delegate.inspect(keys, ownership), false);
  }

  @Override
  public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
    long sentAt = stamp.getAsLong();
    long answered = -1;
    try {
      answered = delegate.waitForReplicas(keys, replicas, timeout);
      return answered;
    } finally {
      synchronized (this) {
        calls.add(new Call("wait", replicas, null, sentAt, answered));
      }
    }
  }

  @Override
  public void close() {
    delegate.close();
  }
}
