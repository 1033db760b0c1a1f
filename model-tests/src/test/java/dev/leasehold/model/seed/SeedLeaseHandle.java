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
 * RedisLeaseHandle; each {@link SeedDefect} puts back one behaviour of the seed walkthrough.
 *
 * <p>This class is threadsafe (every method is synchronized; the fixture is not about concurrency).
 */
final class SeedLeaseHandle implements LeaseHandle {
  private final SeedLeaseAdapter adapter;
  private final LeaseAttempt attempt;
  private final SeedLedger ledger;
  private final OptionalLong token;
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

  /** The belief after the server granted or reported {@code serverMs} to a send at {@code start}. */
  synchronized void grant(long start, Instant wallStart, long serverMs) {
    long budgetMs = Math.min(serverMs, ledger.ambiguousRenewCapMs());
    deadline = start + Duration.ofMillis(Math.max(0, budgetMs)).toNanos() - adapter.drift();
    state = ledger.ambiguousRelease() ? LeaseState.UNKNOWN : LeaseState.ACTIVE;
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
  public synchronized RenewOutcome renew(Duration ttl) {
    try {
      return sendRenew(ttl);
    } finally {
      renewCap = null;
    }
  }

  private RenewOutcome sendRenew(Duration ttl) {
    boolean late = adapter.has(SeedDefect.TTL_CHECK_AFTER_SEND);
    long ttlMs = late ? ttl.toMillis() : adapter.checkedTtl(ttl);
    if (!adapter.has(SeedDefect.RENEW_WITHOUT_PRECONDITION)) {
      // The seed with LOCAL_EXPIRY_NOT_STORED looked at the field, which still said ACTIVE.
      LeaseState st = adapter.has(SeedDefect.LOCAL_EXPIRY_NOT_STORED) ? stored() : state();
      if (!st.isLive() || (st == LeaseState.UNKNOWN && ledger.ambiguousRelease())) {
        return new RenewOutcome.NotActive(st);
      }
    }
    long start = adapter.now();
    Instant wallStart = adapter.wall();
    renewCap = start + Duration.ofMillis(ttlMs).toNanos() - adapter.drift();
    GatewayReply.Change change;
    try {
      change = adapter.gateway().renew(adapter.keys(), attempt.ownership(), ttlMs);
      if (late) {
        adapter.checkedTtl(ttl); // the seed threw here, after the server had run the script
      }
    } catch (GatewayException | IllegalArgumentException e) {
      String kind = adapter.classify(e);
      if (!kind.equals("Indeterminate")) {
        return kind.equals("Unavailable") ? new RenewOutcome.Unavailable(e.getMessage())
            : new RenewOutcome.Overloaded(Duration.ofMillis(50));
      }
      ledger.ambiguousRenew(ttlMs);
      long shorter = start + Duration.ofMillis(ttlMs).toNanos() - adapter.drift();
      if (adapter.has(SeedDefect.RENEW_WITHOUT_PRECONDITION) || stored().isLive()) {
        state = LeaseState.UNKNOWN;
        deadline = Math.min(deadline, shorter);
      }
      return stored() == LeaseState.LOST ? new RenewOutcome.Lost("expired while unanswered")
          : new RenewOutcome.Indeterminate(e.getMessage());
    }
    if (change == GatewayReply.Change.APPLIED) {
      if (adapter.has(SeedDefect.RENEW_WITHOUT_PRECONDITION)) {
        // The seed replaced the budget and kept whatever the state field said.
        deadline = start + Duration.ofMillis(ttlMs).toNanos() - adapter.drift();
        serverExpiry = wallStart.plusMillis(ttlMs);
        return new RenewOutcome.Renewed(Duration.ofNanos(Math.max(0, deadline - adapter.now())));
      }
      if (stored().isLive()) {
        grant(start, wallStart, ttlMs);
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
  public synchronized ReleaseOutcome release() {
    try {
      return sendRelease();
    } finally {
      releasing = false;
    }
  }

  private ReleaseOutcome sendRelease() {
    LeaseState st = state();
    if (!st.isLive()) {
      return new ReleaseOutcome.NotActive(st);
    }
    GatewayReply.Change change;
    releasing = true;
    try {
      change = adapter.gateway().release(adapter.keys(), attempt.ownership());
    } catch (GatewayException e) {
      String kind = adapter.classify(e);
      if (!kind.equals("Indeterminate")) {
        return kind.equals("Unavailable") ? new ReleaseOutcome.Unavailable(e.getMessage())
            : new ReleaseOutcome.Overloaded(Duration.ofMillis(50));
      }
      ledger.releaseWasAmbiguous();
      if (stored().isLive()) {
        state = LeaseState.UNKNOWN;
      }
      return new ReleaseOutcome.Indeterminate(e.getMessage());   // it was sent: never NotActive
    }
    LeaseState end = change == GatewayReply.Change.OTHER ? LeaseState.LOST : LeaseState.RELEASED;
    if (stored().isLive()) {
      state = end;
    }
    return switch (change) {
      case APPLIED -> new ReleaseOutcome.Released();
      case ABSENT -> new ReleaseOutcome.AlreadyAbsent();
      case OTHER -> new ReleaseOutcome.NotOwner();
    };
  }

  @Override
  public void close() {
    if (state().isLive()) {
      release();
    }
  }
}
