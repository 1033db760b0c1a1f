package dev.leasehold.testkit.twin;

import dev.leasehold.lease.LeaseState;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.sim.LeaseClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The Java twin of {@code spec/Lease.tla}: the same variables ({@code now, lag, srv, sent, hs, dl,
 * tok, ambiguousRenewCap, ambiguousRelease, seen, delayed, storeHigh, grants}) and actions ({@code TryAcquire, Replay,
 * Renew, Release, Inspect, State, Tick, LoseReply, Delay/ApplyLate, Refuse, Restart, Effect}), at
 * the granularity of one Java call: where the spec splits a call into Send, Apply, LoseReply,
 * Timeout and Deliver, one method here takes all of them in the order the armed fault dictates.
 *
 * <p>Where the spec abstracts, this follows the rules RedisLeaseHandle and RedisLeaseAdapter implement exactly
 * (one live handle per attempt: a replay refreshes it, a new grant supersedes it; replay budget
 * {@code min(ttl, PTTL, ambiguousRenewCap) - drift}; a successful reply that finds the handle LOST leaves it
 * LOST), so that it can say exactly which outcome the adapter must return. Times are ns on the
 * chain's clocks; the server keeps ms like Redis.
 *
 * <p>This class is not threadsafe. {@link #copy()} is deep, for exploring {@link Choices}.
 */
public final class LeaseModel {
  /** Attempt bookkeeping shared by all handles of one attempt (AttemptLedger). */
  static final class AttemptModel {
    final int owner;
    boolean sent;
    int handle = -1;
    long ambiguousRenewCap = Long.MAX_VALUE;
    boolean ambiguousRelease;

    AttemptModel(int owner) {
      this.owner = owner;
    }

    AttemptModel copy() {
      AttemptModel a = new AttemptModel(owner);
      a.sent = sent;
      a.handle = handle;
      a.ambiguousRenewCap = ambiguousRenewCap;
      a.ambiguousRelease = ambiguousRelease;
      return a;
    }
  }

  /** One handle's belief (RedisLeaseHandle.Belief plus token). */
  static final class HandleModel {
    final int attempt;
    LeaseState hs;
    long dl;
    long tok;
    long wallExpiry;
    /** Ghost: the grant (position in the server's grant log) behind this handle. */
    int grant;

    HandleModel(int attempt) {
      this.attempt = attempt;
    }

    HandleModel copy() {
      HandleModel h = new HandleModel(attempt);
      h.hs = hs;
      h.dl = dl;
      h.tok = tok;
      h.wallExpiry = wallExpiry;
      h.grant = grant;
      return h;
    }
  }

  /** A request in flight whose client gave up (spec: delayed). */
  public record Req(String kind, int attempt, long ttlMs) {}

  /** One wait-loop sleep: what the adapter asked for and the client clock after it. */
  public record Sleep(long requested, long trueAfter) {}

  private final long drift;
  private final FenceMode mode;
  private final long contention;
  private final boolean exact;
  private final long slack;
  private Choices choices = new Choices(List.of());

  // Spec variables.
  long now;
  long lag;
  long cnow;
  int holder = -1;
  long expiryMs;
  long fence;
  int holderGrant;
  final List<AttemptModel> attempts = new ArrayList<>();
  final List<HandleModel> handles = new ArrayList<>();
  final Deque<Fault> faults = new ArrayDeque<>();
  final List<Req> delayed = new ArrayList<>();
  long storeHigh;
  int storeLast;
  int storeMax;
  int grants;

  /**
   * @param exact whether the server is simulated (predictions are exact); on a real server keys
   *     within {@code slack} of expiring are uncertain and tokens are learnt from replies
   */
  public LeaseModel(long driftNanos, FenceMode mode, long contentionNanos, boolean exact, long slackNanos) {
    this.drift = driftNanos;
    this.mode = mode;
    this.contention = contentionNanos;
    this.exact = exact;
    this.slack = slackNanos;
  }

  public LeaseModel copy() {
    LeaseModel m = new LeaseModel(drift, mode, contention, exact, slack);
    m.now = now;
    m.lag = lag;
    m.cnow = cnow;
    m.holder = holder;
    m.expiryMs = expiryMs;
    m.fence = fence;
    m.holderGrant = holderGrant;
    attempts.forEach(a -> m.attempts.add(a.copy()));
    handles.forEach(h -> m.handles.add(h.copy()));
    m.faults.addAll(faults);
    m.delayed.addAll(delayed);
    m.storeHigh = storeHigh;
    m.storeLast = storeLast;
    m.storeMax = storeMax;
    m.grants = grants;
    return m;
  }

  public void choices(Choices c) {
    this.choices = c;
  }

  // ---------------------------------------------------------------- time (Tick, lag)

  /** Tick: time passes; the client clock follows, minus the lag. */
  public void tick(long nanos) {
    now += nanos;
    cnow = Math.max(cnow, now - lag);
  }

  /** The client clock falls behind (or catches up) within the drift budget; it never goes back. */
  public void setLag(long nanos) {
    cnow = Math.max(cnow, now - lag);
    lag = nanos;
    cnow = Math.max(cnow, now - lag);
  }

  /** On a real server: adopt the harness's frozen clock readings. */
  public void syncTime(long trueNanos, long clientNanos) {
    now = trueNanos;
    cnow = clientNanos;
  }

  long nowMs() {
    return Math.floorDiv(now, 1_000_000L);
  }

  // ---------------------------------------------------------------- the server scripts

  /** Whether the key is still there (expiring it if not); uncertain near expiry on a real server. */
  private boolean live() {
    if (holder < 0) {
      return false;
    }
    // Redis forgets a key once its ms clock is past the expiry: it lives to the end of that ms.
    long left = (expiryMs + 1) * 1_000_000L - now;
    boolean alive;
    if (!exact && Math.abs(left) <= slack) {
      alive = choices.choose("key with " + left / 1_000 + " us left still live");
    } else {
      alive = nowMs() <= expiryMs;
    }
    if (!alive) {
      holder = -1;
    }
    return alive;
  }

  record Reply(int status, long token, long pttl, boolean sameOwner) {}

  /** acquire.lua. */
  Reply acquireScript(int a, long ttlMs) {
    if (!live()) {
      long token = fence + 1;
      if (mode == FenceMode.CLOCK_FLOOR) {
        token = Math.max(token, (LeaseClock.EPOCH_NANOS + now) / 1_000L);
      }
      fence = token;
      holder = a;
      expiryMs = nowMs() + ttlMs;
      holderGrant = ++grants;
      return new Reply(1, token, ttlMs, true);
    }
    long pttl = expiryMs - nowMs();
    if (holder == a) {
      return new Reply(2, fence, pttl, true);
    }
    return new Reply(0, 0, pttl, attempts.get(holder).owner == attempts.get(a).owner);
  }

  /** renew.lua: 1 applied, 0 absent, -1 other. */
  int renewScript(int a, long ttlMs) {
    if (!live()) {
      return 0;
    }
    if (holder != a) {
      return -1;
    }
    expiryMs = nowMs() + ttlMs;
    return 1;
  }

  /** release.lua. */
  int releaseScript(int a) {
    if (!live()) {
      return 0;
    }
    if (holder != a) {
      return -1;
    }
    holder = -1;
    return 1;
  }

  /** Restart: an empty server (key, counter and script cache gone). */
  public void restart() {
    holder = -1;
    fence = 0;
  }

  /** ApplyLate: a delayed request reaches the server; its reply goes nowhere. */
  public void applyLate(int index) {
    Req r = delayed.remove(index);
    switch (r.kind()) {
      case "acquire" -> acquireScript(r.attempt(), r.ttlMs());
      case "renew" -> renewScript(r.attempt(), r.ttlMs());
      default -> releaseScript(r.attempt());
    }
  }

  public void arm(Fault f) {
    faults.addLast(f);
  }

  // ---------------------------------------------------------------- the client

  /** NewAttempt; {@code owner} is shared with an earlier attempt to test NoInheritance. */
  public int newAttempt(int owner) {
    attempts.add(new AttemptModel(owner));
    return attempts.size() - 1;
  }

  public int ownerOf(int attempt) {
    return attempts.get(attempt).owner;
  }

  /** State(h)'s refresh: a live belief whose deadline passed is stored LOST. */
  private HandleModel expire(HandleModel h) {
    if (h.hs.isLive() && cnow - h.dl >= 0) {
      h.hs = LeaseState.LOST;
    }
    return h;
  }

  /** The belief after the server granted or reported {@code serverMs} to a send at {@code start}. */
  private void grant(HandleModel h, long start, long wallStart, long serverMs) {
    AttemptModel att = attempts.get(h.attempt);
    long budgetMs = Math.min(serverMs, att.ambiguousRenewCap);
    h.dl = start + Math.max(0, budgetMs) * 1_000_000L - drift;
    h.hs = att.ambiguousRelease ? LeaseState.UNKNOWN : LeaseState.ACTIVE;
    h.wallExpiry = wallStart + Math.max(0, serverMs) * 1_000_000L;
    expire(h);
  }

  private long wall() {
    return LeaseClock.EPOCH_NANOS + cnow;
  }

  /** TryAcquire / Replay including the wait loop, given the sleeps the adapter took. */
  public Outcome tryAcquire(int a, long ttlMs, long waitNanos, List<Sleep> sleeps, List<String> problems) {
    if (ttlMs * 1_000_000L <= drift) {
      return Outcome.of("IllegalArgumentException");
    }
    attempts.get(a).sent = true;
    long deadline = cnow + waitNanos;
    int used = 0;
    boolean earlierTryAmbiguous = false;
    while (true) {
      Outcome out = acquireOnce(a, ttlMs);
      // An earlier try of this call may have been applied: a later unsent or refused try does not
      // make the call certain (RedisLeaseAdapter.honest).
      if (earlierTryAmbiguous && (out.variant().equals("Unavailable") || out.variant().equals("Overloaded"))) {
        out = Outcome.of("Indeterminate");
      }
      earlierTryAmbiguous |= out.variant().equals("Indeterminate");
      Long pause = retryPause(out);
      if (waitNanos == 0 || pause == null) {
        break;
      }
      long left = deadline - cnow;
      if (left <= 0) {
        break;
      }
      if (used >= sleeps.size()) {
        problems.add("the wait loop should have slept after " + out + " with " + left / 1_000 + " us left");
        return out;
      }
      Sleep s = sleeps.get(used++);
      long full = Math.max(pause, 1_000_000L);
      long lo = Math.min(left, full / 2);
      long hi = Math.min(left, full);
      if (s.requested() < lo || s.requested() > hi) {
        problems.add("slept " + s.requested() + " ns, outside [" + lo + ", " + hi + "] (pause " + pause + ", left " + left + ")");
      }
      if (exact) {
        tick(s.requested());
      } else {
        syncTime(s.trueAfter(), Math.max(cnow, s.trueAfter() - lag));
      }
      if (cnow - deadline >= 0) {
        return out;
      }
    }
    Outcome last = lastOutcome;
    if (used < sleeps.size()) {
      problems.add("the wait loop slept " + (sleeps.size() - used) + " more time(s) than it should");
    }
    return last;
  }

  private Outcome lastOutcome;

  private Long retryPause(Outcome out) {
    lastOutcome = out;
    return switch (out.variant()) {
      case "Contended", "Overloaded" -> out.value();
      case "Unavailable", "Indeterminate" -> contention;
      default -> null;
    };
  }

  private Outcome acquireOnce(int a, long ttlMs) {
    long start = cnow;
    long wallStart = wall();
    Fault f = faults.pollFirst();
    if (f == Fault.REFUSE_BEFORE_SEND) {
      return Outcome.of("Unavailable");
    }
    if (f == Fault.REFUSE) {
      return Outcome.timed("Overloaded", contention);
    }
    if (f == Fault.TIMEOUT) {
      delayed.add(new Req("acquire", a, ttlMs));
      return Outcome.of("Indeterminate");
    }
    Reply r = acquireScript(a, ttlMs);
    if (f == Fault.LOSE_REPLY) {
      return Outcome.of("Indeterminate");
    }
    if (r.status() == 1) {
      int h = open(a, r.token(), start, wallStart, Math.min(ttlMs, r.pttl()), -1);
      return new Outcome("Acquired", "", 0, h);
    }
    if (r.status() == 2) {
      int live = attempts.get(a).handle;
      int h = open(a, r.token(), start, wallStart, Math.min(ttlMs, r.pttl()), live);
      return new Outcome("ReplayedSameOperation", "", 0, h);
    }
    if (r.sameOwner()) {
      return Outcome.of("OwnerOperationConflict");
    }
    return Outcome.timed("Contended", r.pttl() > 0 ? r.pttl() * 1_000_000L : contention);
  }

  /** Returns the handle id, or {@link Outcome#NEW_HANDLE}'s future id as a fresh index. */
  private int open(int a, long token, long start, long wallStart, long serverMs, int replayInto) {
    AttemptModel att = attempts.get(a);
    // RedisLeaseAdapter absorbs only a replay of the handle's own grant (same fencing token): after
    // a new grant (the old lease was released or expired) it opens a new handle.
    if (replayInto >= 0 && handles.get(replayInto).grant == holderGrant
        && absorb(handles.get(replayInto), start, wallStart, serverMs)) {
      return replayInto;
    }
    if (att.handle >= 0) {
      HandleModel prev = expire(handles.get(att.handle));
      if (prev.hs.isLive()) {
        prev.hs = LeaseState.LOST; // superseded: the server had lost the old lease
      }
    }
    HandleModel h = new HandleModel(a);
    h.tok = token;
    h.grant = holderGrant;
    grant(h, start, wallStart, serverMs);
    handles.add(h);
    att.handle = handles.size() - 1;
    return att.handle;
  }

  /**
   * RedisLeaseHandle.absorbReplay: a live handle adopts the replay's belief (the server's report
   * from this send is a lower bound of its expiry, even when shorter than the old one).
   */
  private boolean absorb(HandleModel b, long start, long wallStart, long serverMs) {
    expire(b);
    if (!b.hs.isLive()) {
      return false;
    }
    grant(b, start, wallStart, serverMs);
    return true;
  }

  /** Renew(h, ttl) through to its outcome. */
  public Outcome renew(int hid, long ttlMs) {
    if (ttlMs * 1_000_000L <= drift) {
      return Outcome.of("IllegalArgumentException");
    }
    HandleModel h = expire(handles.get(hid));
    AttemptModel att = attempts.get(h.attempt);
    if (!h.hs.isLive() || (h.hs == LeaseState.UNKNOWN && att.ambiguousRelease)) {
      return Outcome.of("NotActive", h.hs.name());
    }
    long start = cnow;
    long wallStart = wall();
    Fault f = faults.pollFirst();
    if (f == Fault.REFUSE_BEFORE_SEND) {
      return Outcome.of("Unavailable");
    }
    if (f == Fault.REFUSE) {
      return Outcome.timed("Overloaded", contention);
    }
    int status = 0;
    if (f == Fault.TIMEOUT) {
      delayed.add(new Req("renew", h.attempt, ttlMs));
    } else {
      status = renewScript(h.attempt, ttlMs);
    }
    if (f == Fault.TIMEOUT || f == Fault.LOSE_REPLY) {
      att.ambiguousRenewCap = Math.min(att.ambiguousRenewCap, ttlMs);
      long shorter = start + ttlMs * 1_000_000L - drift;
      if (expire(h).hs.isLive()) {
        h.hs = LeaseState.UNKNOWN;
        h.dl = Math.min(h.dl, shorter);
      }
      return expire(h).hs == LeaseState.LOST ? Outcome.of("Lost") : Outcome.of("Indeterminate");
    }
    if (status == 1) {
      if (expire(h).hs.isLive()) {
        grant(h, start, wallStart, ttlMs);
      }
      if (h.hs == LeaseState.LOST) {
        return Outcome.of("Lost");
      }
      if (h.hs != LeaseState.ACTIVE) {
        return Outcome.of("Indeterminate");
      }
      return Outcome.timed("Renewed", Math.max(0, h.dl - cnow));
    }
    if (expire(h).hs.isLive()) {
      h.hs = LeaseState.LOST;
    }
    return Outcome.of("Lost");
  }

  /** Release(h) through to its outcome. */
  public Outcome release(int hid) {
    HandleModel h = expire(handles.get(hid));
    AttemptModel att = attempts.get(h.attempt);
    if (!h.hs.isLive()) {
      return Outcome.of("NotActive", h.hs.name());
    }
    Fault f = faults.pollFirst();
    if (f == Fault.REFUSE_BEFORE_SEND) {
      return Outcome.of("Unavailable");
    }
    if (f == Fault.REFUSE) {
      return Outcome.timed("Overloaded", contention);
    }
    int status = 0;
    if (f == Fault.TIMEOUT) {
      delayed.add(new Req("release", h.attempt, 0));
    } else {
      status = releaseScript(h.attempt);
    }
    if (f == Fault.TIMEOUT || f == Fault.LOSE_REPLY) {
      att.ambiguousRelease = true;
      if (expire(h).hs.isLive()) {
        h.hs = LeaseState.UNKNOWN;
      }
      return Outcome.of("Indeterminate");   // it was sent: never NotActive, even if LOST by now
    }
    LeaseState end = status == -1 ? LeaseState.LOST : LeaseState.RELEASED;
    if (expire(h).hs.isLive()) {
      h.hs = end;
    }
    return Outcome.of(status == 1 ? "Released" : status == 0 ? "AlreadyAbsent" : "NotOwner");
  }

  /** Inspect(a): read-only. */
  public Outcome inspect(int a) {
    Fault f = faults.pollFirst();
    if (f == Fault.REFUSE_BEFORE_SEND || f == Fault.REFUSE) {
      return Outcome.of("Unavailable");
    }
    if (f != null) {
      return Outcome.of("Indeterminate");
    }
    if (!live()) {
      return Outcome.of("Absent");
    }
    String detail = "mine=" + (holder == a) + ", token=" + (exact ? (fence > 0 ? fence : "none") : "?");
    return new Outcome("Held", detail, Math.max(0, expiryMs - nowMs()) * 1_000_000L, Outcome.NO_HANDLE);
  }

  /** State(h): the refreshed state. */
  public LeaseState state(int hid) {
    return expire(handles.get(hid)).hs;
  }

  public long remaining(int hid) {
    HandleModel h = expire(handles.get(hid));
    return h.hs == LeaseState.ACTIVE ? Math.max(0, h.dl - cnow) : 0;
  }

  /** Effect(h): the fenced store accepts iff token >= the highest it accepted. */
  public boolean effect(int hid) {
    HandleModel h = handles.get(hid);
    if (h.tok <= 0 || h.tok < storeHigh) {
      return false;
    }
    storeHigh = h.tok;
    storeLast = h.grant;
    storeMax = Math.max(storeMax, h.grant);
    return true;
  }

  // ---------------------------------------------------------------- read access for the harness

  public int handleCount() {
    return handles.size();
  }

  public int attemptCount() {
    return attempts.size();
  }

  public int handleAttempt(int hid) {
    return handles.get(hid).attempt;
  }

  public long deadline(int hid) {
    return handles.get(hid).dl;
  }

  public long token(int hid) {
    return handles.get(hid).tok;
  }

  public long wallExpiry(int hid) {
    return handles.get(hid).wallExpiry;
  }

  public boolean sent(int a) {
    return attempts.get(a).sent;
  }

  public int liveHandleOf(int a) {
    return attempts.get(a).handle;
  }

  public List<Req> delayedRequests() {
    return List.copyOf(delayed);
  }

  public int armed() {
    return faults.size();
  }

  public long clientNow() {
    return cnow;
  }

  public long trueNow() {
    return now;
  }

  public long lag() {
    return lag;
  }

  public int holder() {
    return holder;
  }

  /** The first instant the key is gone. */
  public long expiryNanos() {
    return (expiryMs + 1) * 1_000_000L;
  }

  public long fence() {
    return fence;
  }

  public boolean ambiguousRelease(int a) {
    return attempts.get(a).ambiguousRelease;
  }

  public long ambiguousRenewCap(int a) {
    return attempts.get(a).ambiguousRenewCap;
  }

  public int storeLast() {
    return storeLast;
  }

  public int storeMax() {
    return storeMax;
  }

  // ---------------------------------------------------------------- learning on a real server

  /** Adopts what the adapter reported where the model only had an approximation. */
  public void pin(int hid, long deadline, long token, long wallExpiry) {
    HandleModel h = handles.get(hid);
    h.dl = deadline;
    h.wallExpiry = wallExpiry;
    if (token > 0) {
      h.tok = token;
    }
  }

  /** Adopts the server's state as read directly (real server only). */
  public void pinServer(int holderAttempt, long expiryNanos, long fenceValue) {
    holder = holderAttempt;
    if (holderAttempt >= 0) {
      expiryMs = Math.floorDiv(expiryNanos, 1_000_000L) - 1;
    }
    fence = fenceValue;
  }
}
