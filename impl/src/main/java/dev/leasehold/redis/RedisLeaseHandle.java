package dev.leasehold.redis;

import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * A lease held through a {@link RedisLeaseAdapter}: the client half of the protocol in
 * {@code spec/Lease.tla}. The belief (state, local deadline, server expiry, the request in flight)
 * is one immutable {@link Belief} swapped atomically, so {@link #state()} never blocks and always
 * agrees with the last outcome; renew and release are serialized by a lock so a watchdog thread
 * and the application thread never have two requests of one handle in flight. While one is in
 * flight, {@link #state()} and {@link #remainingValidity()} already allow for it (the spec's
 * {@code Observed(a)} and {@code Deadline(a)}): the server may apply it at any moment before the
 * reply arrives.
 *
 * <p>This class is threadsafe.
 */
public final class RedisLeaseHandle implements LeaseHandle {
  /** The request of this handle whose reply has not come back yet. */
  sealed interface InFlight {
    InFlight NONE = new Nothing();

    record Nothing() implements InFlight {}

    /** A renew(ttl) sent at start: once applied the server may hold only start + ttl, so cap is start + ttl - drift. */
    record Renew(long cap) implements InFlight {}

    /** A release: the key may be gone at any moment, so an ACTIVE handle reads UNKNOWN. */
    record Release() implements InFlight {}
  }

  /**
   * One consistent view of the lease; {@code deadline} is on the monotonic clock, in ns, and
   * {@code state} is what the last reply left (the stored state of the spec's {@code hs}).
   */
  record Belief(LeaseState state, long deadline, Instant serverExpiry, InFlight inFlight) {
    Belief(LeaseState state, long deadline, Instant serverExpiry) {
      this(state, deadline, serverExpiry, InFlight.NONE);
    }

    /** The deadline to rely on now: a renew in flight may already have shortened the lease. */
    long validUntil() {
      return inFlight instanceof InFlight.Renew r ? Math.min(deadline, r.cap()) : deadline;
    }

    /** What state() answers: an ACTIVE handle whose release is in flight may already be gone. */
    LeaseState observed() {
      return state == LeaseState.ACTIVE && inFlight instanceof InFlight.Release ? LeaseState.UNKNOWN : state;
    }

    Belief sending(InFlight request) {
      return new Belief(state, deadline, serverExpiry, request);
    }

    Belief ended(LeaseState end) {
      return new Belief(end, deadline, serverExpiry, inFlight);
    }
  }

  private final RedisLeaseConfig config;
  private final LeaseAttempt attempt;
  private final AttemptLedger ledger;
  private final LeaseKeys keys;
  private final OptionalLong fencingToken;
  private final LeaseGuarantee guarantee;
  private final long driftNanos;
  private final ReentrantLock requests = new ReentrantLock();
  private final AtomicReference<Belief> belief;

  RedisLeaseHandle(RedisLeaseConfig config, LeaseAttempt attempt, AttemptLedger ledger, LeaseKeys keys,
      OptionalLong fencingToken, LeaseGuarantee guarantee, long start, Instant wallStart, long serverMs) {
    this.config = config;
    this.attempt = attempt;
    this.ledger = ledger;
    this.keys = keys;
    this.fencingToken = fencingToken;
    this.guarantee = fencingToken.isPresent() ? guarantee : LeaseGuarantee.EFFICIENCY_ONLY;
    this.driftNanos = config.driftBudget().toNanos();
    this.belief = new AtomicReference<>(granted(start, wallStart, serverMs));
  }

  /**
   * The belief after the server granted (or reported) {@code serverMs} at a request sent at
   * {@code start}: capped by the attempt's pending renews, never ACTIVE while a release of the
   * attempt may still delete the lease.
   */
  private Belief granted(long start, Instant wallStart, long serverMs) {
    long budgetMs = Math.min(serverMs, ledger.renewFloorMs());
    long deadline = start + Duration.ofMillis(Math.max(0, budgetMs)).toNanos() - driftNanos;
    LeaseState state = ledger.releaseMayDelete() ? LeaseState.UNKNOWN : LeaseState.ACTIVE;
    return expire(new Belief(state, deadline, wallStart.plusMillis(Math.max(0, serverMs))));
  }

  /** Local expiry, stored: a live belief whose deadline (capped by a renew in flight) has passed becomes LOST for good. */
  private Belief expire(Belief b) {
    if (b.state().isLive() && config.monotonicNanos().getAsLong() - b.validUntil() >= 0) {
      return b.ended(LeaseState.LOST);
    }
    return b;
  }

  private Belief update(UnaryOperator<Belief> change) {
    return belief.updateAndGet(b -> expire(change.apply(expire(b))));
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
    return remaining(current());
  }

  /** What {@code b} leaves to rely on now; zero unless it reads ACTIVE. */
  private Duration remaining(Belief b) {
    if (b.observed() != LeaseState.ACTIVE) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.max(0, b.validUntil() - config.monotonicNanos().getAsLong()));
  }

  @Override
  public Instant observedServerExpiry() {
    return current().serverExpiry();
  }

  @Override
  public OptionalLong fencingToken() {
    return fencingToken;
  }

  @Override
  public LeaseGuarantee guarantee() {
    return guarantee;
  }

  @Override
  public RenewOutcome renew(Duration ttl) {
    long ttlMs = config.ttlMillis("ttl", ttl);
    try {
      requests.lockInterruptibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new RenewOutcome.Unavailable("interrupted before sending");
    }
    try {
      Belief before = current();
      if (!before.state().isLive() || (before.state() == LeaseState.UNKNOWN && ledger.releaseMayDelete())) {
        return new RenewOutcome.NotActive(before.state());
      }
      long start = config.monotonicNanos().getAsLong();
      Instant wallStart = config.wallClock().instant();
      GatewayReply.Change change;
      ledger.beginRenew(ttlMs);
      update(b -> b.sending(new InFlight.Renew(start + Duration.ofMillis(ttlMs).toNanos() - driftNanos)));
      try {
        try {
          change = config.gateway().renew(keys, attempt.ownership(), ttlMs);
        } catch (GatewayException e) {
          ledger.endRenew(ttlMs, !e.provablyNotApplied());
          return renewFailed(e);
        } catch (RuntimeException | Error e) {
          // Not a classified failure (a bug, a reply we cannot read): it may have run, so keep only
          // what an unanswered renew keeps before the caller sees the exception.
          ledger.endRenew(ttlMs, true);
          renewUnanswered();
          throw e;
        }
        ledger.endRenew(ttlMs, false);
        return switch (change) {
          case APPLIED -> renewed(start, wallStart, ttlMs);
          case ABSENT -> lost("lease absent: expired or deleted on the server");
          case OTHER -> lost("lease held by another attempt");
        };
      } finally {
        landed();
      }
    } finally {
      requests.unlock();
    }
  }

  /** The reply (or the failure) is in: nothing of this handle is in flight any more. */
  private void landed() {
    update(b -> b.sending(InFlight.NONE));
  }

  private RenewOutcome renewed(long start, Instant wallStart, long ttlMs) {
    Belief after = update(b -> b.state().isLive() ? granted(start, wallStart, ttlMs) : b);
    if (after.state() == LeaseState.LOST) {
      // The old budget ran out while the request was in flight; LOST stays LOST.
      return new RenewOutcome.Lost("local validity ran out before the renew reply arrived");
    }
    if (after.state() != LeaseState.ACTIVE) {
      return new RenewOutcome.Indeterminate("a release of this attempt may still delete the lease");
    }
    return new RenewOutcome.Renewed(remaining(after));
  }

  private RenewOutcome lost(String reason) {
    update(b -> b.state().isLive() ? b.ended(LeaseState.LOST) : b);
    return new RenewOutcome.Lost(reason);
  }

  private RenewOutcome renewFailed(GatewayException e) {
    switch (e.failure()) {
      case NOT_SENT, REFUSED:
        return new RenewOutcome.Unavailable(e.getMessage());
      case OVERLOADED:
        return new RenewOutcome.Overloaded(config.contentionRetryAfter());
      default:
        Belief after = renewUnanswered();
        if (after.state() == LeaseState.LOST) {
          return new RenewOutcome.Lost("local validity ran out while the renew was unanswered");
        }
        return new RenewOutcome.Indeterminate(e.getMessage());
    }
  }

  /**
   * The renew may have run, perhaps with a shorter TTL: keep only what both cases allow (spec
   * Timeout). That is the deadline the renew in flight already capped, now stored.
   */
  private Belief renewUnanswered() {
    return update(b -> b.state().isLive() ? new Belief(LeaseState.UNKNOWN, b.validUntil(), b.serverExpiry()) : b);
  }

  @Override
  public ReleaseOutcome release() {
    // Not interruptible: release is cleanup, and a cancelled worker still has to give the lease back.
    requests.lock();
    try {
      Belief before = current();
      if (!before.state().isLive()) {
        return new ReleaseOutcome.NotActive(before.state());
      }
      GatewayReply.Change change;
      ledger.beginRelease();
      update(b -> b.sending(new InFlight.Release()));
      try {
        try {
          change = config.gateway().release(keys, attempt.ownership());
        } catch (GatewayException e) {
          ledger.endRelease(!e.provablyNotApplied());
          return releaseFailed(e);
        } catch (RuntimeException | Error e) {
          // As for renew: the key may be gone, so the handle is UNKNOWN before the caller sees the exception.
          ledger.endRelease(true);
          releaseUnanswered();
          throw e;
        }
        ledger.endRelease(false);
        return switch (change) {
          case APPLIED -> settle(LeaseState.RELEASED, new ReleaseOutcome.Released());
          case ABSENT -> settle(LeaseState.RELEASED, new ReleaseOutcome.AlreadyAbsent());
          case OTHER -> settle(LeaseState.LOST, new ReleaseOutcome.NotOwner());
        };
      } finally {
        landed();
      }
    } finally {
      requests.unlock();
    }
  }

  /** A definite release reply ends a live handle; one whose budget ran out in flight stays LOST. */
  private ReleaseOutcome settle(LeaseState end, ReleaseOutcome outcome) {
    update(b -> b.state().isLive() ? b.ended(end) : b);
    return outcome;
  }

  private ReleaseOutcome releaseFailed(GatewayException e) {
    switch (e.failure()) {
      case NOT_SENT, REFUSED:
        return new ReleaseOutcome.Unavailable(e.getMessage());
      case OVERLOADED:
        return new ReleaseOutcome.Overloaded(config.contentionRetryAfter());
      default:
        Belief after = releaseUnanswered();
        if (after.state() == LeaseState.LOST) {
          return new ReleaseOutcome.NotActive(LeaseState.LOST);
        }
        return new ReleaseOutcome.Indeterminate(e.getMessage());
    }
  }

  /** The release may have run: a live handle is UNKNOWN from now on (spec Timeout). */
  private Belief releaseUnanswered() {
    return update(b -> b.state().isLive() ? b.ended(LeaseState.UNKNOWN) : b);
  }

  /**
   * A replay of this handle's attempt succeeded while the handle is live: adopt the server's
   * report, which is newer than anything the handle knew (the lease may have been shortened since,
   * by a late renew or from outside). Returns false if the handle is no longer live, so the caller
   * opens a new one.
   */
  boolean absorbReplay(long start, Instant wallStart, long serverMs) {
    boolean[] absorbed = new boolean[1];
    update(b -> {
      // updateAndGet may run this more than once; the last run decides.
      absorbed[0] = b.state().isLive();
      // A renew or release of this handle may still be in flight: its cap or UNKNOWN stays until it lands.
      return absorbed[0] ? granted(start, wallStart, serverMs).sending(b.inFlight()) : b;
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
        + ", state=" + b.observed() + ", fencingToken=" + fencingToken + "]";
  }
}
