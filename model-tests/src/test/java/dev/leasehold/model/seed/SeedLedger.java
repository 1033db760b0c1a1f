package dev.leasehold.model.seed;

import java.util.ArrayList;
import java.util.List;

/**
 * The fixture's per-attempt bookkeeping (the fixed adapter's AttemptLedger is package-private):
 * the smallest TTL of an ambiguous renew, whether a release was ambiguous, the newest handle, and
 * each acquire or renew between its send and the judging of its reply (a {@link Flight}: the
 * smallest renew TTL and whether a release was in flight at any time meanwhile). The two race
 * defects read the ledger at the reply instead of the flight.
 *
 * <p>This class is threadsafe.
 */
final class SeedLedger {
  /** One acquire or renew in flight; guarded by the ledger's monitor. */
  static final class Flight {
    private final long renewTtlMs;
    private long capMs;
    private boolean releaseSeen;

    private Flight(long renewTtlMs, long capMs, boolean releaseSeen) {
      this.renewTtlMs = renewTtlMs;
      this.capMs = capMs;
      this.releaseSeen = releaseSeen;
    }
  }

  private final List<Flight> flights = new ArrayList<>();
  private long ambiguousRenewCapMs = Long.MAX_VALUE;
  private int releasesInFlight;
  private boolean ambiguousRelease;
  private SeedLeaseHandle handle;

  synchronized Flight beginAcquire() {
    return open(Long.MAX_VALUE);
  }

  synchronized void endAcquire(Flight f) {
    flights.remove(f);
  }

  /** A renew(ttl) about to be sent caps every flight already open. */
  synchronized Flight beginRenew(long ttlMs) {
    for (Flight f : flights) {
      f.capMs = Math.min(f.capMs, ttlMs);
    }
    return open(ttlMs);
  }

  synchronized void endRenew(Flight f, boolean ambiguous) {
    flights.remove(f);
    if (ambiguous) {
      ambiguousRenewCapMs = Math.min(ambiguousRenewCapMs, f.renewTtlMs);
    }
  }

  private Flight open(long renewTtlMs) {
    Flight f = new Flight(renewTtlMs, renewCapMs(), releaseMayDelete());
    flights.add(f);
    return f;
  }

  /** The smallest renew TTL in flight now or left ambiguous. */
  private long renewCapMs() {
    long cap = ambiguousRenewCapMs;
    for (Flight f : flights) {
      cap = Math.min(cap, f.renewTtlMs);
    }
    return cap;
  }

  /** The cap on the budget {@code f}'s success grants; {@code atReply}: only what is in flight now (RENEW_CAP_AT_REPLY). */
  synchronized long budgetCapMs(Flight f, boolean atReply) {
    return atReply ? renewCapMs() : Math.min(f.capMs, renewCapMs());
  }

  synchronized void beginRelease() {
    releasesInFlight++;
    for (Flight f : flights) {
      f.releaseSeen = true;
    }
  }

  synchronized void endRelease(boolean ambiguous) {
    releasesInFlight--;
    ambiguousRelease |= ambiguous;
  }

  /** Whether a release may still delete the lease now. */
  synchronized boolean releaseMayDelete() {
    return ambiguousRelease || releasesInFlight > 0;
  }

  /** Whether {@code f}'s lease may be gone; {@code atReply}: only what is in flight now (RELEASE_CHECK_AT_REPLY). */
  synchronized boolean releaseMayDelete(Flight f, boolean atReply) {
    return (!atReply && f.releaseSeen) || releaseMayDelete();
  }

  synchronized SeedLeaseHandle handle() {
    return handle;
  }

  synchronized void handle(SeedLeaseHandle h) {
    handle = h;
  }
}
