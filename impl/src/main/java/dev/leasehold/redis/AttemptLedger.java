package dev.leasehold.redis;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What one attempt has in flight or left ambiguous on one lease key, shared by every handle of
 * that pair (attempt, lease key). Another key of the same attempt has its own ledger: nothing of
 * one resource's requests caps or blocks the other's handles.
 *
 * <p>A request whose reply was lost can still be applied later. A late RENEW with a short TTL
 * would shorten the lease below a budget granted since, and a late RELEASE would delete a lease a
 * handle believes {@code ACTIVE}. Any later application of a RENEW(ttl) sets the expiry to at
 * least its send time plus ttl, so capping every later budget at the smallest such ttl keeps the
 * budget within the server lease without relying on the order in which requests arrive.
 *
 * <p>Replies do not arrive in the order the server ran the requests either: a replay the server
 * ran before a short renew can be answered after the renew's reply, when the renew has left the
 * ledger. So each request whose success grants a budget (an acquire or a renew) keeps a
 * {@link Flight} from before it is sent until its reply is judged: a replay's budget is capped by
 * every renew of the attempt in flight at any time during the replay's flight, and a replay that
 * overlapped a release is never ACTIVE.
 *
 * <p>This class is threadsafe: every method holds the ledger's monitor, which
 * {@link RedisLeaseAdapter} also holds while it opens or refreshes a handle of this pair.
 */
final class AttemptLedger {
  /**
   * One acquire or renew of this pair between its send and the judging of its reply: the
   * smallest renew TTL and whether a release was in flight at any time meanwhile. Guarded by the
   * ledger's monitor.
   */
  static final class Flight {
    /** The TTL this request itself may set: a renew's, or none for an acquire (it never extends). */
    private final long renewTtlMs;
    private long capMs;
    private boolean releaseSeen;

    private Flight(long renewTtlMs, long capMs, boolean releaseSeen) {
      this.renewTtlMs = renewTtlMs;
      this.capMs = capMs;
      this.releaseSeen = releaseSeen;
    }
  }

  /**
   * Open flights; a Flight's equals is identity. Few at a time (one per thread using the pair), so
   * sized for one: a ledger is kept per held lease.
   */
  private final List<Flight> flights = new ArrayList<>(1);
  private long ambiguousRenewCapMs = Long.MAX_VALUE;
  private int releasesInFlight;
  private boolean ambiguousRelease;
  /** Weak, so that the adapter's map of ledgers does not keep handles (and their attempts) alive. */
  private WeakReference<RedisLeaseHandle> handle = new WeakReference<>(null);
  /** Told (outside this monitor) when a request of the pair ended, so it may be clean: {@link Ledgers} drops it. */
  private final Consumer<AttemptLedger> ended;

  /** A ledger of no adapter's map (tests). */
  AttemptLedger() {
    this(ledger -> { });
  }

  AttemptLedger(Consumer<AttemptLedger> ended) {
    this.ended = ended;
  }

  /** Opens the flight of an acquire (a first try or a replay) about to be sent. */
  synchronized Flight beginAcquire() {
    return open(Long.MAX_VALUE);
  }

  void endAcquire(Flight flight) {
    synchronized (this) {
      flights.remove(flight);
    }
    mayBeClean();
  }

  /** Opens the flight of a renew(ttl) about to be sent; it caps every flight already open. */
  synchronized Flight beginRenew(long ttlMs) {
    for (Flight f : flights) {
      f.capMs = Math.min(f.capMs, ttlMs);
    }
    return open(ttlMs);
  }

  /** Ends a renew; an ambiguous one stays a cap on every later budget of this pair. */
  void endRenew(Flight flight, boolean ambiguous) {
    synchronized (this) {
      flights.remove(flight);
      if (ambiguous) {
        ambiguousRenewCapMs = Math.min(ambiguousRenewCapMs, flight.renewTtlMs);
      }
    }
    mayBeClean();
  }

  private Flight open(long renewTtlMs) {
    Flight f = new Flight(renewTtlMs, renewCapMs(), releaseMayDelete());
    flights.add(f);
    return f;
  }

  /** The longest budget (ms) any success of this pair may grant now: the smallest renew TTL in flight or ambiguous. */
  synchronized long renewCapMs() {
    long cap = ambiguousRenewCapMs;
    for (Flight f : flights) {
      cap = Math.min(cap, f.renewTtlMs);
    }
    return cap;
  }

  /** The longest budget (ms) the success of {@code flight} may grant: capped by every renew seen during it or still pending. */
  synchronized long budgetCapMs(Flight flight) {
    return Math.min(flight.capMs, renewCapMs());
  }

  synchronized void beginRelease() {
    releasesInFlight++;
    for (Flight f : flights) {
      f.releaseSeen = true;
    }
  }

  void endRelease(boolean ambiguous) {
    synchronized (this) {
      releasesInFlight--;
      ambiguousRelease |= ambiguous;
    }
    mayBeClean();
  }

  /** Whether a RELEASE of this pair may still delete its lease: then no handle may be ACTIVE. */
  synchronized boolean releaseMayDelete() {
    return ambiguousRelease || releasesInFlight > 0;
  }

  /** Whether the lease {@code flight} reports may be gone: a release overlapped it, or may still run. */
  synchronized boolean releaseMayDelete(Flight flight) {
    return flight.releaseSeen || releaseMayDelete();
  }

  /** The pair's newest handle, if it is still referenced. */
  synchronized RedisLeaseHandle handle() {
    return handle.get();
  }

  synchronized void handle(RedisLeaseHandle handle) {
    this.handle = new WeakReference<>(handle);
  }

  /**
   * Lets the adapter's map drop this ledger if it is clean. Called from the finally blocks that end
   * requests, so it never throws: a failure (the handle's state() reads the configured clock) only
   * keeps the ledger, which is what the adapter did before it dropped clean ones.
   */
  private void mayBeClean() {
    try {
      ended.accept(this);
    } catch (RuntimeException e) {
      // Keeping a clean ledger is safe; hiding the caller's own outcome behind this would not be.
    }
  }

  /**
   * Whether this ledger says nothing a new one would not: no request in flight, none left
   * ambiguous, and no handle that may still send (a handle checks that it is live and registers
   * its request in one step under this monitor, and a handle that is not live never is again).
   * Then the pair may start afresh, and the adapter's map lets it go.
   */
  synchronized boolean isClean() {
    RedisLeaseHandle h = handle.get();
    return flights.isEmpty() && releasesInFlight == 0 && !ambiguousRelease && ambiguousRenewCapMs == Long.MAX_VALUE
        && (h == null || !h.state().isLive());
  }
}
