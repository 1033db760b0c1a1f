package dev.leasehold.testkit.twin;

import dev.leasehold.lease.LeaseState;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The twin's client: every attempt's ledger and every handle's belief, and the spec's rules for
 * them, each method named after the operator it mirrors (Observed, BudgetCap, ReleaseMayDelete,
 * NewDeadline, Fresh, Absorbs, and what DeliverAcquire, DeliverRenew, DeliverRelease and Timeout
 * do to a handle). Where the spec abstracts, it follows notes/PROTOCOL.md: one live handle per
 * attempt (a replay of its own grant refreshes it, a new grant supersedes it) and a successful
 * reply that finds the handle LOST leaves it LOST.
 *
 * <p>This class is not threadsafe.
 */
final class ClientModel {
  private final ModelTime time;
  private final long drift;
  /** How far (ns) a reply may land after the step's clock reading: 0 when simulated. */
  private final LongSupplier slack;
  private Choices choices = new Choices(List.of());
  final List<AttemptModel> attempts;
  final List<HandleModel> handles;

  ClientModel(ModelTime time, long drift, LongSupplier slack) {
    this(time, drift, slack, new ArrayList<>(), new ArrayList<>());
  }

  private ClientModel(ModelTime time, long drift, LongSupplier slack, List<AttemptModel> attempts, List<HandleModel> handles) {
    this.time = time;
    this.drift = drift;
    this.slack = slack;
    this.attempts = attempts;
    this.handles = handles;
  }

  void choices(Choices c) {
    this.choices = c;
  }

  /** A deep copy on {@code t}; the copy's choices start empty. */
  ClientModel copy(ModelTime t) {
    ClientModel c = new ClientModel(t, drift, slack);
    attempts.forEach(a -> c.attempts.add(a.copy()));
    handles.forEach(h -> c.handles.add(h.copy()));
    return c;
  }

  int newAttempt() {
    attempts.add(new AttemptModel());
    return attempts.size() - 1;
  }

  AttemptModel attemptOf(HandleModel h) {
    return attempts.get(h.attempt);
  }

  /**
   * Observed(a), as RedisLeaseHandle.state() reads it: a live belief whose deadline passed is
   * LOST, and stored so (the spec's State(a)). No call is in flight between two Java calls, so the
   * spec's UNKNOWN for a release in flight does not arise here.
   */
  LeaseState observed(HandleModel h) {
    if (h.hs.isLive() && time.cnow - h.dl >= 0) {
      h.hs = LeaseState.LOST;
    }
    return h.hs;
  }

  /** CanRenew(a): a live handle, and no ambiguous release that may have deleted its lease. */
  boolean canRenew(HandleModel h) {
    LeaseState s = observed(h);
    return s.isLive() && !(s == LeaseState.UNKNOWN && releaseMayDelete(attemptOf(h)));
  }

  /** BudgetCap(a, l) (AttemptLedger.budgetCapMs) without windows (the twin runs one call at a time): the smallest TTL of the attempt's ambiguous renews. */
  private static long budgetCap(AttemptModel att) {
    return att.ambiguousRenewCap;
  }

  /** ReleaseMayDelete(a): an ambiguous release of the attempt may still delete its lease. */
  private static boolean releaseMayDelete(AttemptModel att) {
    return att.ambiguousRelease;
  }

  /** NewDeadline(a, l): from the start of the send, the granted time capped by the ledger, less the drift. */
  private long newDeadline(AttemptModel att, long start, long grantedMs) {
    long budgetMs = Math.min(grantedMs, budgetCap(att));
    return start + Math.max(0, budgetMs) * 1_000_000L - drift;
  }

  /** Fresh(a, l, d): ACTIVE only if d is still ahead and no release may have deleted the lease. */
  private LeaseState fresh(AttemptModel att, long d) {
    if (time.cnow - d >= 0) {
      return LeaseState.LOST;
    }
    return releaseMayDelete(att) ? LeaseState.UNKNOWN : LeaseState.ACTIVE;
  }

  /**
   * SetHandle(a, Fresh(a, l, d), d, ...) with d = NewDeadline(a, l) for a reply granting
   * {@code grantedMs} (spec Granted) to a send at {@code start}; observedServerExpiry is
   * ObservedExpiry(a, l), without the drift or the ledger's cap.
   */
  private void setHandle(HandleModel h, long start, long wallStart, long grantedMs) {
    AttemptModel att = attemptOf(h);
    h.dl = newDeadline(att, start, grantedMs);
    h.hs = fresh(att, h.dl);
    h.wallExpiry = wallStart + Math.max(0, grantedMs) * 1_000_000L;
  }

  /**
   * Absorbs(a, l): a replay of the handle's own grant refreshes it while it is live
   * (RedisLeaseHandle.absorbReplay adopts this send's report even when shorter than the old one).
   * After a new grant (the old lease was released or expired) RedisLeaseAdapter opens a new handle.
   * Like the adapter (and the spec's Absorbs) it tells grants apart by token: after a restart that
   * lost the COUNTER, a new grant may repeat the old token, and then it is absorbed too.
   */
  private boolean absorbs(HandleModel h, long token) {
    if (h.tok != token) {
      return false;
    }
    // On a real server the reply lands a little after the step's clock reading: a deadline that
    // close may have passed by then, and the adapter opens a new handle instead.
    long window = slack.getAsLong();
    if (window > 0 && h.hs.isLive() && Math.abs(h.dl - time.cnow) <= window) {
      return choices.choose("handle with " + (h.dl - time.cnow) / 1_000 + " us left still live at the reply");
    }
    return observed(h).isLive();
  }

  /**
   * DeliverAcquire of status 1 or 2: refreshes the handle {@code replayInto} (-1: none) if it
   * absorbs the reply, else opens a new handle that supersedes the attempt's old one (LOST: the
   * server had lost the old lease). Returns the handle's id.
   */
  int deliverAcquire(int a, long token, int grant, long start, long wallStart, long grantedMs, int replayInto) {
    if (replayInto >= 0 && absorbs(handles.get(replayInto), token)) {
      setHandle(handles.get(replayInto), start, wallStart, grantedMs);
      return replayInto;
    }
    AttemptModel att = attempts.get(a);
    if (att.handle >= 0) {
      HandleModel prev = handles.get(att.handle);
      if (observed(prev).isLive()) {
        prev.hs = LeaseState.LOST;
      }
    }
    HandleModel h = new HandleModel(a);
    h.tok = token;
    h.grant = grant;
    setHandle(h, start, wallStart, grantedMs);
    handles.add(h);
    att.handle = handles.size() - 1;
    return att.handle;
  }

  /** DeliverRenew: status 1 sets the new deadline on a live handle, 0 or -1 makes it LOST; LOST stays. */
  void deliverRenew(HandleModel h, int status, long start, long wallStart, long ttlMs) {
    // Local expiry first, by the deadline the renew in flight capped (the spec's Deadline(a) while
    // Locked): a slow reply that arrives after it finds the handle LOST, whatever it says.
    if (observed(h).isLive() && Math.min(h.dl, start + ttlMs * 1_000_000L - drift) <= time.cnow) {
      h.hs = LeaseState.LOST;
      return;
    }
    if (observed(h).isLive()) {
      if (status == 1) {
        setHandle(h, start, wallStart, ttlMs);
      } else {
        h.hs = LeaseState.LOST;
      }
    }
  }

  /** DeliverRelease: 1 and 0 make a live handle RELEASED, -1 LOST; LOST stays. */
  void deliverRelease(HandleModel h, int status) {
    if (observed(h).isLive()) {
      h.hs = status == -1 ? LeaseState.LOST : LeaseState.RELEASED;
    }
  }

  /**
   * Timeout of a renew(ttl): the ledger's cap takes the TTL, and a live handle turns UNKNOWN with
   * deadline min(dl, start + ttl - drift). Returns the state after.
   */
  LeaseState timeoutRenew(HandleModel h, long start, long ttlMs) {
    AttemptModel att = attemptOf(h);
    att.ambiguousRenewCap = Math.min(att.ambiguousRenewCap, ttlMs);
    long shorter = start + ttlMs * 1_000_000L - drift;
    if (observed(h).isLive()) {
      h.hs = LeaseState.UNKNOWN;
      h.dl = Math.min(h.dl, shorter);
    }
    return observed(h);
  }

  /** Timeout of a release: the ledger's release is ambiguous, and a live handle turns UNKNOWN. */
  void timeoutRelease(HandleModel h) {
    attemptOf(h).ambiguousRelease = true;
    if (observed(h).isLive()) {
      h.hs = LeaseState.UNKNOWN;
    }
  }

  /** What remainingValidity() says: the time to the deadline while ACTIVE, else 0. */
  long remaining(HandleModel h) {
    return observed(h) == LeaseState.ACTIVE ? Math.max(0, h.dl - time.cnow) : 0;
  }
}
