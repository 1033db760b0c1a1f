package dev.leasehold.model.seed;

import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.GatewayReply;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * The fixture's handle: with no defect switched on it follows the spec like
 * RedisLeaseHandle; each {@link SeedDefect} puts back one behaviour of the seed walkthrough or of the
 * pre-fix adapter.
 *
 * <p>This class is threadsafe: every read and every change of the belief holds the handle's monitor,
 * which no call holds across its I/O (a replay of the attempt on another thread may be absorbed
 * while a renew or release is in flight). A renew and a release of one handle take the handle's
 * request lock, as RedisLeaseHandle does: they never overlap each other.
 */
final class SeedLeaseHandle implements LeaseHandle {
  private final SeedLeaseAdapter adapter;
  private final LeaseAttempt attempt;
  private final SeedLedger ledger;
  private final OptionalLong token;
  private final Object requests = new Object();
  private LeaseState state;
  private long deadline;
  private Instant serverExpiry;
  /** While a renew(ttl) is in flight: start + ttl - drift, which caps the deadline (spec Deadline(a)); else null. */
  private Long renewCap;
  /** While a release is in flight: an ACTIVE handle reads UNKNOWN (spec Observed(a)). */
  private boolean releasing;

  SeedLeaseHandle(SeedLeaseAdapter adapter, LeaseAttempt attempt, SeedLedger ledger, long token) {
    this.adapter = adapter;
    this.attempt = attempt;
    this.ledger = ledger;
    this.token = token > 0 ? OptionalLong.of(token) : OptionalLong.empty();
  }

  /**
   * The belief after the server granted or reported {@code serverMs} to a send at {@code start},
   * judged by the send's {@code flight} (or, with a race defect, by the ledger at the reply).
   */
  synchronized void grant(SeedLedger.Flight flight, long start, Instant wallStart, long serverMs) {
    long budgetMs = Math.min(serverMs, ledger.budgetCapMs(flight, adapter.has(SeedDefect.RENEW_CAP_AT_REPLY)));
    deadline = start + Duration.ofMillis(Math.max(0, budgetMs)).toNanos() - adapter.drift();
    state = ledger.releaseMayDelete(flight, adapter.has(SeedDefect.RELEASE_CHECK_AT_REPLY))
        ? LeaseState.UNKNOWN : LeaseState.ACTIVE;
    serverExpiry = adapter.has(SeedDefect.OBSERVED_EXPIRY_FROM_BUDGET)
        ? wallStart.plusNanos(Duration.ofMillis(budgetMs).toNanos() - adapter.drift())
        : wallStart.plusMillis(Math.max(0, serverMs));
    stored();
  }

  private long validUntil() {
    return renewCap == null ? deadline : Math.min(deadline, renewCap);
  }

  private boolean expired() {
    return state.isLive() && adapter.now() - validUntil() >= 0;
  }

  /** The state with local expiry applied and stored (unless the seed defect is on). */
  private LeaseState stored() {
    if (expired() && !adapter.has(SeedDefect.LOCAL_EXPIRY_NOT_STORED)) {
      state = LeaseState.LOST;
    }
    return state;
  }

  @Override
  public synchronized LeaseState state() {
    stored();
    LeaseState s = expired() ? LeaseState.LOST : state;
    return s == LeaseState.ACTIVE && releasing ? LeaseState.UNKNOWN : s;
  }

  synchronized boolean isLive() {
    return state().isLive();
  }

  synchronized void supersede() {
    if (state().isLive()) {
      state = LeaseState.LOST;
    }
  }

  @Override
  public synchronized Duration remainingValidity() {
    return state() == LeaseState.ACTIVE ? Duration.ofNanos(Math.max(0, validUntil() - adapter.now())) : Duration.ZERO;
  }

  @Override
  public synchronized Instant observedServerExpiry() {
    return serverExpiry;
  }

  @Override
  public OptionalLong fencingToken() {
    return token;
  }

  @Override
  public LeaseGuarantee guarantee() {
    return token.isPresent() ? LeaseGuarantee.FENCED : LeaseGuarantee.EFFICIENCY_ONLY;
  }

  @Override
  public void checkTtl(Duration ttl) {
    // The seed judged the TTL only after sending (TTL_CHECK_AFTER_SEND): with that defect, nothing here.
    if (!adapter.has(SeedDefect.TTL_CHECK_AFTER_SEND)) {
      adapter.checkedTtl(ttl);
    }
  }

  @Override
  public RenewOutcome renew(Duration ttl) {
    synchronized (requests) {
      try {
        return sendRenew(ttl);
      } finally {
        synchronized (this) {
          renewCap = null;
        }
      }
    }
  }

  private RenewOutcome sendRenew(Duration ttl) {
    boolean late = adapter.has(SeedDefect.TTL_CHECK_AFTER_SEND);
    long ttlMs = late ? ttl.toMillis() : adapter.checkedTtl(ttl);
    long start;
    Instant wallStart;
    SeedLedger.Flight flight;
    synchronized (this) {
      if (!adapter.has(SeedDefect.RENEW_WITHOUT_PRECONDITION)) {
        // The seed with LOCAL_EXPIRY_NOT_STORED looked at the field, which still said ACTIVE.
        LeaseState st = adapter.has(SeedDefect.LOCAL_EXPIRY_NOT_STORED) ? stored() : state();
        if (!st.isLive() || (st == LeaseState.UNKNOWN && ledger.releaseMayDelete())) {
          return new RenewOutcome.NotActive(st);
        }
      }
      start = adapter.now();
      wallStart = adapter.wall();
      renewCap = start + Duration.ofMillis(ttlMs).toNanos() - adapter.drift();
      flight = ledger.beginRenew(ttlMs);
    }
    boolean ambiguous = false;
    try {
      GatewayReply.Change change;
      try {
        change = adapter.gateway().renew(adapter.keys(), attempt.ownership(), ttlMs, 0);
        if (late) {
          adapter.checkedTtl(ttl); // the seed threw here, after the server had run the script
        }
      } catch (GatewayException | IllegalArgumentException e) {
        String kind = adapter.classify(e);
        if (!kind.equals("Indeterminate")) {
          return kind.equals("Unavailable") ? new RenewOutcome.Unavailable(e.getMessage())
              : new RenewOutcome.Overloaded(Duration.ofMillis(50));
        }
        ambiguous = true;
        return renewUnanswered(start, ttlMs, e);
      }
      return renewAnswered(change, flight, start, wallStart, ttlMs);
    } finally {
      // Ended once the outcome is judged: until then this renew caps the attempt's other flights.
      ledger.endRenew(flight, ambiguous);
    }
  }

  private synchronized RenewOutcome renewUnanswered(long start, long ttlMs, RuntimeException e) {
    long shorter = start + Duration.ofMillis(ttlMs).toNanos() - adapter.drift();
    if (adapter.has(SeedDefect.RENEW_WITHOUT_PRECONDITION) || stored().isLive()) {
      state = LeaseState.UNKNOWN;
      deadline = Math.min(deadline, shorter);
    }
    return stored() == LeaseState.LOST ? new RenewOutcome.Lost("expired while unanswered")
        : new RenewOutcome.Indeterminate(e.getMessage());
  }

  private synchronized RenewOutcome renewAnswered(GatewayReply.Change change, SeedLedger.Flight flight, long start,
      Instant wallStart, long ttlMs) {
    if (change == GatewayReply.Change.APPLIED) {
      if (adapter.has(SeedDefect.RENEW_WITHOUT_PRECONDITION)) {
        // The seed replaced the budget and kept whatever the state field said.
        deadline = start + Duration.ofMillis(ttlMs).toNanos() - adapter.drift();
        serverExpiry = wallStart.plusMillis(ttlMs);
        return new RenewOutcome.Renewed(Duration.ofNanos(Math.max(0, deadline - adapter.now())));
      }
      if (stored().isLive()) {
        grant(flight, start, wallStart, ttlMs);
      }
      if (state == LeaseState.LOST) {
        return new RenewOutcome.Lost("expired before the reply");
      }
      return state == LeaseState.ACTIVE ? new RenewOutcome.Renewed(remainingValidity())
          : new RenewOutcome.Indeterminate("a release may still delete the lease");
    }
    if (adapter.has(SeedDefect.RENEW_WITHOUT_PRECONDITION) || stored().isLive()) {
      state = LeaseState.LOST;
    }
    return new RenewOutcome.Lost(change == GatewayReply.Change.ABSENT ? "absent" : "held by another attempt");
  }

  @Override
  public ReleaseOutcome release() {
    synchronized (requests) {
      synchronized (this) {
        LeaseState st = state();
        if (!st.isLive()) {
          return new ReleaseOutcome.NotActive(st);
        }
        releasing = true;
        ledger.beginRelease();
      }
      boolean ambiguous = false;
      try {
        GatewayReply.Change change;
        try {
          change = adapter.gateway().release(adapter.keys(), attempt.ownership());
        } catch (GatewayException e) {
          String kind = adapter.classify(e);
          if (!kind.equals("Indeterminate")) {
            return kind.equals("Unavailable") ? new ReleaseOutcome.Unavailable(e.getMessage())
                : new ReleaseOutcome.Overloaded(Duration.ofMillis(50));
          }
          ambiguous = true;
          synchronized (this) {
            if (stored().isLive()) {
              state = LeaseState.UNKNOWN;
            }
          }
          return new ReleaseOutcome.Indeterminate(e.getMessage());   // it was sent: never NotActive
        }
        synchronized (this) {
          LeaseState end = change == GatewayReply.Change.OTHER ? LeaseState.LOST : LeaseState.RELEASED;
          if (stored().isLive()) {
            state = end;
          }
        }
        return switch (change) {
          case APPLIED -> new ReleaseOutcome.Released();
          case ABSENT -> new ReleaseOutcome.AlreadyAbsent();
          case OTHER -> new ReleaseOutcome.NotOwner();
        };
      } finally {
        ledger.endRelease(ambiguous);
        synchronized (this) {
          releasing = false;
        }
      }
    }
  }

  @Override
  public void close() {
    if (state().isLive()) {
      release();
    }
  }
}
