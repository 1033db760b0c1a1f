package dev.leasehold.testkit.fault;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.ScriptCalls;
import dev.leasehold.testkit.sim.SimulatedGateway;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * <p>Once {@link #gatherRenewals} is called, a renewal sent without waiting ({@link #renewAsync})
 * is queued, and {@link #flushRenewals} sends every queued one as one call that meets one armed
 * fault, as the lettuce gateway's batches do: the whole batch applied and answered, lost, refused,
 * delayed or slow.
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
   * (-1 when it failed); every other call has {@code answered} -1. A batch of renewals
   * ({@link #sendRenewals}) is one call on the wire but one {@code Call} per lease, in the batch's
   * order, each with its lease's TTL and the batch's one fault and instant: the spec's Renew steps
   * of the leases, sent together.
   */
  public record Call(String kind, long ttlMillis, Fault fault, long sentAt, long answered) {}

  /** A batch {@link #flushRenewals} sent: how many leases, and the fault its call met (null: none). */
  public record Flushed(int leases, Fault fault) {}

  /**
   * A batch {@link #sendRenewals} sent whose leases are not answered yet: the server's side is
   * done (applied, lost, refused or delayed, by the one fault), and {@link #answer} completes one
   * lease's future with its element of the reply or with the call's failure, so that a caller can
   * read the client between the replies.
   *
   * @param ownerships each lease's ownership, in the batch's order
   */
  public record SentBatch(Flushed flushed, List<String> ownerships, List<Runnable> answers) {
    public SentBatch {
      ownerships = List.copyOf(ownerships);
      answers = List.copyOf(answers);
    }

    public int size() {
      return answers.size();
    }

    /** Lease {@code i} hears back (each once). */
    public void answer(int i) {
      answers.get(i).run();
    }
  }

  /** A renewal sent without waiting, queued for the next batch. */
  private record Queued(ScriptCalls.Renewal renewal, long counterRetentionMillis,
      CompletableFuture<GatewayReply.Change> reply) {}

  private final LeaseGateway delegate;
  private final List<Queued> queued = new ArrayList<>();
  private volatile boolean gathering;
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

  /** From now on {@link #renewAsync} queues its renewal until {@link #flushRenewals}. */
  public void gatherRenewals() {
    gathering = true;
  }

  /** How many renewals are queued for the next batch. */
  public synchronized int queuedRenewals() {
    return queued.size();
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

  /** The fault the next call meets, or null when none is armed. */
  public synchronized Fault nextFault() {
    Fault.Armed next = armed.peekFirst();
    return next == null ? null : next.fault();
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

  /** The fault the next call meets, recorded as one {@link Call} per TTL in {@code ttls} (one per lease of a batch). */
  private synchronized Fault.Armed next(String kind, List<Long> ttls) {
    Fault.Armed fault = armed.pollFirst();
    long sentAt = stamp.getAsLong();
    for (long ttl : ttls) {
      calls.add(new Call(kind, ttl, fault == null ? null : fault.fault(), sentAt, -1));
    }
    return fault;
  }

  /**
   * One call: at its send, its server step and its reply it passes a point of the
   * {@link Interleaving} it runs in, if any (a lane of a concurrent step waits there for its turn).
   */
  private <T> T call(String kind, String ownership, long ttl, Supplier<T> send, boolean mutating) {
    return call(kind, List.of(ttl), send, mutating, () -> List.of(new Delayed(kind, ownership, ttl, send::get)));
  }

  /**
   * @param ttls the TTL of each lease the call carries (one but for a batch)
   * @param late the requests a timeout keeps for {@link #applyLate}: one per lease of a batch
   */
  private <T> T call(String kind, List<Long> ttls, Supplier<T> send, boolean mutating, Supplier<List<Delayed>> late) {
    Interleaving.point(kind + ":send");
    Fault.Armed armedFault = next(kind, ttls);
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
            delayed.addAll(late.get());
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
  public CompletableFuture<GatewayReply.Change> renewAsync(LeaseKeys keys, String ownership, long ttlMillis,
      long counterRetentionMillis) {
    if (!gathering) {
      return LeaseGateway.super.renewAsync(keys, ownership, ttlMillis, counterRetentionMillis);
    }
    CompletableFuture<GatewayReply.Change> reply = new CompletableFuture<>();
    synchronized (this) {
      queued.add(new Queued(new ScriptCalls.Renewal(keys, ownership, ttlMillis), counterRetentionMillis, reply));
    }
    return reply;
  }

  /**
   * Sends the queued renewals as one call that meets the next armed fault, and completes each
   * lease's future with its own element of the reply, or every one with the call's failure: see
   * {@link #sendRenewals}.
   */
  public Flushed flushRenewals() {
    SentBatch sent = sendRenewals();
    for (int i = 0; i < sent.size(); i++) {
      sent.answer(i);
    }
    return sent.flushed();
  }

  /**
   * Sends the queued renewals as one call (recorded as one {@link Call} per lease) that meets the
   * next armed fault, and leaves their futures to {@link SentBatch#answer}. A timeout keeps each
   * lease's renewal as a delayed request of its own, in order: a late batch may reach the server
   * lease by lease.
   */
  public SentBatch sendRenewals() {
    List<Queued> batch;
    Fault.Armed meets;
    synchronized (this) {
      batch = List.copyOf(queued);
      queued.clear();
      meets = armed.peekFirst();
    }
    if (batch.isEmpty()) {
      return new SentBatch(new Flushed(0, null), List.of(), List.of());
    }
    Flushed flushed = new Flushed(batch.size(), meets == null ? null : meets.fault());
    long retention = batch.get(0).counterRetentionMillis();
    if (batch.stream().anyMatch(q -> q.counterRetentionMillis() != retention)) {
      // The script takes one retention per call; the lettuce gateway groups its batches by it.
      throw new IllegalStateException("a batch's renewals share one counter retention");
    }
    List<ScriptCalls.Renewal> renewals = batch.stream().map(Queued::renewal).toList();
    List<String> ownerships = renewals.stream().map(ScriptCalls.Renewal::ownership).toList();
    List<Runnable> answers = new ArrayList<>();
    try {
      List<GatewayReply.Change> changes = call("renew", renewals.stream().map(ScriptCalls.Renewal::ttlMillis).toList(),
          () -> renewAll(renewals, retention), true,
          () -> renewals.stream().map(r -> new Delayed("renew", r.ownership(), r.ttlMillis(),
              () -> delegate.renew(r.keys(), r.ownership(), r.ttlMillis(), retention))).toList());
      for (int i = 0; i < batch.size(); i++) {
        CompletableFuture<GatewayReply.Change> reply = batch.get(i).reply();
        GatewayReply.Change change = changes.get(i);
        answers.add(() -> reply.complete(change));
      }
    } catch (GatewayException e) {
      batch.forEach(q -> answers.add(() -> q.reply().completeExceptionally(e)));
    }
    return new SentBatch(flushed, ownerships, answers);
  }

  /**
   * The server's side of a batch: one multi-lease RENEW on the simulated server; on another
   * gateway each renewal through its own {@code renewAsync}, which the lettuce gateway gathers into
   * its RENEW calls, joined (a failed call fails the batch).
   */
  private List<GatewayReply.Change> renewAll(List<ScriptCalls.Renewal> renewals, long retention) {
    if (delegate instanceof SimulatedGateway sim) {
      return sim.renewAll(renewals, retention);
    }
    List<CompletableFuture<GatewayReply.Change>> replies = renewals.stream()
        .map(r -> delegate.renewAsync(r.keys(), r.ownership(), r.ttlMillis(), retention)).toList();
    try {
      return replies.stream().map(CompletableFuture::join).toList();
    } catch (CompletionException e) {
      if (e.getCause() instanceof GatewayException g) {
        throw g;
      }
      throw e;
    }
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
