package dev.leasehold.redis;

import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.redis.Belief.InFlight;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.function.UnaryOperator;

/**
 * A lease held through a {@link RedisLeaseAdapter}: the client half of the protocol in
 * {@code spec/tla/Lease.tla}. The belief (state, local deadline, server expiry, the request in flight)
 * is one immutable {@link Belief} swapped atomically, so {@link #state()} never blocks and always
 * agrees with the last outcome; renew and release are serialized by a lock so a watchdog thread
 * and the application thread never have two requests of one handle in flight. While one is in
 * flight, {@link #state()} and {@link #remainingValidity()} already allow for it (the spec's
 * {@code Observed(a)} and {@code Deadline(a)}): the server may apply it at any moment before the
 * reply arrives.
 *
 * <p>A replay of the attempt ({@code tryAcquire} again) takes no handle lock: it may run beside
 * this handle's renew or release, and the handle of a new grant has a lock of its own. What keeps
 * them apart is the {@link AttemptLedger} of the pair (attempt, lease key): every budget a reply
 * grants is judged by that request's {@link AttemptLedger.Flight}, and a renew or release is
 * checked and registered there in one step, so a grant that supersedes this handle either sees
 * the request or makes the handle LOST before it is sent.
 *
 * <p>This class is threadsafe.
 */
public final class RedisLeaseHandle implements LeaseHandle {
  /** No token was granted; tokens are positive. */
  private static final long NO_TOKEN = 0;

  private final RedisLeaseConfig config;
  private final LeaseAttempt attempt;
  private final AttemptLedger ledger;
  private final LeaseKeys keys;
  /** The token, or {@link #NO_TOKEN}: a long rather than a kept OptionalLong, 24 bytes less per held lease. */
  private final long fencingToken;
  private final LeaseGuarantee guarantee;
  private final long driftNanos;
  /**
   * One renew or release in flight: a permit rather than a lock, since an asynchronous renew gives
   * it back on the thread that reads its reply.
   */
  private final Semaphore requests = new Semaphore(1);
  private final AtomicReference<Belief> belief;

  RedisLeaseHandle(RedisLeaseConfig config, LeaseAttempt attempt, AttemptLedger ledger, LeaseKeys keys,
      OptionalLong fencingToken, LeaseGuarantee guarantee, AttemptLedger.Flight flight, long start, Instant wallStart,
      long serverMs) {
    this.config = config;
    this.attempt = attempt;
    this.ledger = ledger;
    this.keys = keys;
    this.fencingToken = fencingToken.orElse(NO_TOKEN);
    this.guarantee = fencingToken.isPresent() ? guarantee : LeaseGuarantee.EFFICIENCY_ONLY;
    this.driftNanos = config.driftBudget().toNanos();
    this.belief = new AtomicReference<>(granted(flight, start, wallStart, serverMs));
  }

  /**
   * The belief after the server granted (or reported) {@code serverMs} at a request sent at
   * {@code start}: a budget is capped by every renew of the attempt in flight at any time during
   * the request's flight (or left ambiguous), and a request that overlapped a release is never
   * ACTIVE. Its reply may land after a later request's reply, so the ledger's state at reply time
   * alone is not enough.
   */
  private Belief granted(AttemptLedger.Flight flight, long start, Instant wallStart, long serverMs) {
    long budgetMs = Math.min(serverMs, ledger.budgetCapMs(flight));
    long deadline = start + Duration.ofMillis(Math.max(0, budgetMs)).toNanos() - driftNanos;
    LeaseState state = ledger.releaseMayDelete(flight) ? LeaseState.UNKNOWN : LeaseState.ACTIVE;
    return new Belief(state, deadline, wallStart.plusMillis(Math.max(0, serverMs))).expire(now());
  }

  private long now() {
    return config.monotonicNanos().getAsLong();
  }

  /**
   * Applies {@code change} to the belief, storing local expiry before and after it. A change that
   * leaves the belief as it is (every read of the state) stores nothing: a store, even of the same
   * belief, is work for the collector's write barrier on each of the many held handles.
   */
  private Belief update(UnaryOperator<Belief> change) {
    Belief before = belief.get();
    while (true) {
      Belief after = change.apply(before.expire(now())).expire(now());
      if (after == before || belief.compareAndSet(before, after)) {
        return after;
      }
      before = belief.get();
    }
  }

  private Belief current() {
    return update(UnaryOperator.identity());
  }

  @Override
  public LeaseState state() {
    return current().observed();
  }

  @Override
  public Duration remainingValidity() {
    return current().remaining(now());
  }

  @Override
  public Instant observedServerExpiry() {
    return current().serverExpiry();
  }

  @Override
  public OptionalLong fencingToken() {
    return fencingToken == NO_TOKEN ? OptionalLong.empty() : OptionalLong.of(fencingToken);
  }

  @Override
  public LeaseGuarantee guarantee() {
    return guarantee;
  }

  @Override
  public void checkTtl(Duration ttl) {
    config.ttlMillis("ttl", ttl);
  }

  @Override
  public RenewOutcome renew(Duration ttl) {
    long ttlMs = config.ttlMillis("ttl", ttl);
    try {
      requests.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new RenewOutcome.Unavailable("interrupted before sending");
    }
    try {
      RenewSend send = beginRenew(ttlMs);
      if (send.outcome() != null) {
        return send.outcome();
      }
      GatewayReply.Change change;
      try {
        change = config.gateway().renew(keys, attempt.ownership(), ttlMs, config.counterRetentionMillis());
      } catch (RuntimeException | Error e) {
        return endRenew(send, null, e);
      }
      return endRenew(send, change, null);
    } finally {
      requests.release();
    }
  }

  /**
   * Sends the renew and returns at once; the stage completes, on the thread that read the reply,
   * with what {@link #renew} would have returned. With another renew or release of this handle in
   * flight nothing is sent: {@code Unavailable}, the handle unchanged.
   */
  @Override
  public CompletionStage<RenewOutcome> renewAsync(Duration ttl) {
    long ttlMs = config.ttlMillis("ttl", ttl);
    if (!requests.tryAcquire()) {
      return CompletableFuture.completedFuture(
          new RenewOutcome.Unavailable("another renew or release of this handle is in flight; not sent"));
    }
    RenewSend send;
    try {
      send = beginRenew(ttlMs);
    } catch (RuntimeException | Error e) {
      requests.release();
      throw e;
    }
    if (send.outcome() != null) {
      requests.release();
      return CompletableFuture.completedFuture(send.outcome());
    }
    CompletableFuture<GatewayReply.Change> reply;
    try {
      reply = config.gateway().renewAsync(keys, attempt.ownership(), ttlMs, config.counterRetentionMillis());
    } catch (RuntimeException | Error e) {
      reply = CompletableFuture.failedFuture(e);
    }
    return reply.handle((change, failure) -> {
      try {
        return endRenew(send, change, failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
      } finally {
        requests.release();
      }
    });
  }

  /** A renew about to be sent ({@code outcome} null), or the outcome of one that is not sent. */
  private record RenewSend(RenewOutcome outcome, AttemptLedger.Flight flight, long start, Instant wallStart, long ttlMs) {}

  /** With the request permit held: checks the handle and registers the renew in the ledger and the belief. */
  private RenewSend beginRenew(long ttlMs) {
    AttemptLedger.Flight flight;
    synchronized (ledger) {
      // Checked and registered in one step under the monitor a grant of this pair holds while it
      // supersedes this handle: the grant either sees this renew (and is capped by it) or has
      // made this handle LOST, and then nothing is sent.
      Belief before = current();
      if (!before.state().isLive() || (before.state() == LeaseState.UNKNOWN && ledger.releaseMayDelete())) {
        return new RenewSend(new RenewOutcome.NotActive(before.state()), null, 0, null, ttlMs);
      }
      flight = ledger.beginRenew(ttlMs);
    }
    long start = now();
    Instant wallStart = config.wallClock().instant();
    update(b -> b.sending(new InFlight.Renew(start + Duration.ofMillis(ttlMs).toNanos() - driftNanos)));
    return new RenewSend(null, flight, start, wallStart, ttlMs);
  }

  /**
   * Judges a sent renew by its reply ({@code change}) or its failure, then ends its flight: until
   * then it still caps the pair's other flights. A failure that is not a classified gateway failure
   * (a bug, a reply we cannot read) may have run, so only what an unanswered renew keeps is kept,
   * and it is thrown on.
   */
  private RenewOutcome endRenew(RenewSend send, GatewayReply.Change change, Throwable failure) {
    boolean ambiguous = false;
    try {
      if (failure instanceof GatewayException e) {
        ambiguous = !e.provablyNotApplied();
        return renewFailed(e);
      }
      if (failure != null) {
        ambiguous = true;
        renewUnanswered();
        if (failure instanceof Error error) {
          throw error;
        }
        throw failure instanceof RuntimeException r ? r : new IllegalStateException(failure);
      }
      return switch (change) {
        case APPLIED -> renewed(send.flight(), send.start(), send.wallStart(), send.ttlMs());
        case ABSENT -> lost("lease absent: expired or deleted on the server");
        case OTHER -> lost("lease held by another attempt");
      };
    } finally {
      ledger.endRenew(send.flight(), ambiguous);
      update(b -> b.sending(InFlight.NONE));
    }
  }

  private RenewOutcome renewed(AttemptLedger.Flight flight, long start, Instant wallStart, long ttlMs) {
    Belief after = update(b -> b.state().isLive() ? granted(flight, start, wallStart, ttlMs) : b);
    if (after.state() == LeaseState.LOST) {
      // The old budget ran out, or a newer grant superseded this handle, in flight; LOST stays LOST.
      return new RenewOutcome.Lost("LOST before the renew reply arrived (validity ran out, or a newer grant superseded it)");
    }
    if (after.state() != LeaseState.ACTIVE) {
      return new RenewOutcome.Indeterminate("a release of this attempt may still delete the lease");
    }
    return new RenewOutcome.Renewed(after.remaining(now()));
  }

  private RenewOutcome lost(String reason) {
    update(b -> b.state().isLive() ? b.ended(LeaseState.LOST) : b);
    return new RenewOutcome.Lost(reason);
  }

  private RenewOutcome renewFailed(GatewayException e) {
    return switch (e.failure()) {
      case NOT_SENT, REFUSED -> new RenewOutcome.Unavailable(e.getMessage());
      case OVERLOADED -> new RenewOutcome.Overloaded(config.contentionRetryAfter());
      case AMBIGUOUS -> renewUnanswered().state() == LeaseState.LOST
          ? new RenewOutcome.Lost("local validity ran out while the renew was unanswered")
          : new RenewOutcome.Indeterminate(e.getMessage());
    };
  }

  /**
   * The renew may have run, perhaps with a shorter TTL: keep only what both cases allow (spec
   * Timeout). That is the deadline the renew in flight already capped, now stored.
   */
  private Belief renewUnanswered() {
    return update(b -> b.state().isLive() ? new Belief(LeaseState.UNKNOWN, b.validUntil(), b.expirySecond(), b.expiryNano(), InFlight.NONE) : b);
  }

  @Override
  public ReleaseOutcome release() {
    // Not interruptible: release is cleanup, and a cancelled worker still has to give the lease back.
    requests.acquireUninterruptibly();
    try {
      synchronized (ledger) {
        // As in renew: a grant that supersedes this handle either sees this release or stops it here.
        Belief before = current();
        if (!before.state().isLive()) {
          return new ReleaseOutcome.NotActive(before.state());
        }
        ledger.beginRelease();
      }
      boolean ambiguous = false;
      try {
        update(b -> b.sending(new InFlight.Release()));
        GatewayReply.Change change;
        try {
          change = config.gateway().release(keys, attempt.ownership());
        } catch (GatewayException e) {
          ambiguous = !e.provablyNotApplied();
          return releaseFailed(e);
        } catch (RuntimeException | Error e) {
          // As for renew: the key may be gone, so the handle is UNKNOWN before the caller sees the exception.
          ambiguous = true;
          releaseUnanswered();
          throw e;
        }
        return switch (change) {
          case APPLIED -> settle(LeaseState.RELEASED, new ReleaseOutcome.Released());
          case ABSENT -> settle(LeaseState.RELEASED, new ReleaseOutcome.AlreadyAbsent());
          case OTHER -> settle(LeaseState.LOST, new ReleaseOutcome.NotOwner());
        };
      } finally {
        ledger.endRelease(ambiguous);
        update(b -> b.sending(InFlight.NONE));
      }
    } finally {
      requests.release();
    }
  }

  /** Moves a live handle to {@code end}; one whose budget ran out in flight stays LOST. */
  private ReleaseOutcome settle(LeaseState end, ReleaseOutcome outcome) {
    update(b -> b.state().isLive() ? b.ended(end) : b);
    return outcome;
  }

  private ReleaseOutcome releaseFailed(GatewayException e) {
    return switch (e.failure()) {
      case NOT_SENT, REFUSED -> new ReleaseOutcome.Unavailable(e.getMessage());
      case OVERLOADED -> new ReleaseOutcome.Overloaded(config.contentionRetryAfter());
      // It may have run (spec Timeout): a live handle is UNKNOWN. Sent, so never NotActive, even if LOST by now.
      case AMBIGUOUS -> settle(LeaseState.UNKNOWN, new ReleaseOutcome.Indeterminate(e.getMessage()));
    };
  }

  /** The release may have run: a live handle is UNKNOWN from now on (spec Timeout). */
  private Belief releaseUnanswered() {
    return update(b -> b.state().isLive() ? b.ended(LeaseState.UNKNOWN) : b);
  }

  /**
   * A replay of this handle's attempt succeeded while the handle is live: adopt the server's
   * report, which is newer than anything the handle knew (the lease may have been shortened since,
   * by a late renew or from outside), judged by the replay's {@code flight} like any grant. Returns
   * false if the handle is no longer live, so the caller opens a new one.
   */
  boolean absorbReplay(AttemptLedger.Flight flight, long start, Instant wallStart, long serverMs) {
    boolean[] absorbed = new boolean[1];
    update(b -> {
      // updateAndGet may run this more than once; the last run decides.
      absorbed[0] = b.state().isLive();
      // A renew or release of this handle may still be in flight: its cap or UNKNOWN stays until it lands.
      return absorbed[0] ? granted(flight, start, wallStart, serverMs).sending(b.inFlight()) : b;
    });
    return absorbed[0];
  }

  /** A newer grant of the same attempt means the server had lost this handle's lease. */
  void supersede() {
    update(b -> b.state().isLive() ? b.ended(LeaseState.LOST) : b);
  }

  @Override
  public void close() {
    if (current().state().isLive()) {
      release();
    }
  }

  @Override
  public String toString() {
    Belief b = current();
    return "RedisLeaseHandle[key=" + keys.lease() + ", operationId=" + attempt.operationId()
        + ", state=" + b.observed() + ", fencingToken=" + fencingToken() + "]";
  }
}
