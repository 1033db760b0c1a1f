package dev.leasehold.testkit.twin;

import dev.leasehold.lease.LeaseState;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.Fault;
import java.util.ArrayDeque;
import java.util.function.LongSupplier;
import java.util.List;

/**
 * The Java twin of {@code spec/Lease.tla}: the same variables ({@code now, lag, srv, sent, hs, dl,
 * tok, ambiguousRenewCap, ambiguousRelease, seen, delayed, storeHigh, grants}) and actions ({@code
 * TryAcquire, Replay, Renew, Release, Inspect, State, Tick, LoseReply, Delay/ApplyLate, Refuse,
 * Restart, Effect}), at the granularity of one Java call. This class is the harness's entry point;
 * the spec's parts are each a class: the clocks ({@link ModelTime}), the server and its scripts
 * ({@link ServerModel}), the client's attempts and handles ({@link ClientModel}), one call through
 * to its outcome ({@link CallModel}), the adapter's wait loop ({@link WaitLoopModel}) and the fenced
 * store ({@link FencedStore}).
 *
 * <p>Where the spec abstracts, this follows the rules RedisLeaseHandle and RedisLeaseAdapter implement exactly
 * (one live handle per attempt: a replay refreshes it, a new grant supersedes it; replay budget
 * {@code min(ttl, PTTL, ambiguousRenewCap) - drift}; a successful reply that finds the handle LOST
 * leaves it LOST), so that it can say exactly which outcome the adapter must return. Times are ns
 * on the chain's clocks; the server keeps ms like Redis.
 *
 * <p>This class is not threadsafe. {@link #copy()} is deep, for exploring {@link Choices}.
 */
public final class LeaseModel {
  /** A request in flight whose client gave up (spec: delayed). */
  public record Req(String kind, int attempt, long ttlMs) {}

  /** One lease of a batch of renewals: handle {@code handle} renewed for {@code ttlMs}. */
  public record Renewal(int handle, long ttlMs) {}

  /** One wait-loop sleep: what the adapter asked for and the client clock after it. */
  public record Sleep(long requested, long trueAfter) {}

  private final long drift;
  private final boolean exact;
  private final long contention;
  private final ModelTime time;
  private final ServerModel server;
  private final ClientModel client;
  private final CallModel calls;
  private final FencedStore store;

  /**
   * @param exact whether the server is simulated (predictions are exact); on a real server keys
   *     within {@code slackNanos} of expiring are uncertain and tokens are learnt from replies
   * @param slackNanos read at every use: on a real server it widens with the lateness measured so far
   */
  public LeaseModel(long driftNanos, FenceMode mode, long contentionNanos, boolean exact, LongSupplier slackNanos) {
    this.drift = driftNanos;
    this.exact = exact;
    this.contention = contentionNanos;
    this.time = new ModelTime();
    this.server = new ServerModel(time, mode, exact, slackNanos);
    this.client = new ClientModel(time, driftNanos, exact ? () -> 0 : slackNanos);
    this.calls = new CallModel(time, server, client, driftNanos, contentionNanos, new ArrayDeque<>());
    this.store = new FencedStore();
  }

  private LeaseModel(LeaseModel m) {
    this.drift = m.drift;
    this.exact = m.exact;
    this.contention = m.contention;
    this.time = m.time.copy();
    this.server = m.server.copy(time);
    this.client = m.client.copy(time);
    this.calls = m.calls.copy(time, server, client);
    this.store = m.store.copy();
  }

  public LeaseModel copy() {
    return new LeaseModel(this);
  }

  public void choices(Choices c) {
    server.choices(c);
    client.choices(c);
  }

  // ---------------------------------------------------------------- time (Tick, lag)

  /** Tick: time passes; the client clock follows, minus the lag. */
  public void tick(long nanos) {
    time.tick(nanos);
  }

  /** The client clock falls behind (or catches up) within the drift budget; it never goes back. */
  public void setLag(long nanos) {
    time.setLag(nanos);
  }

  /** On a real server: adopt the harness's frozen clock readings. */
  public void syncTime(long trueNanos, long clientNanos) {
    time.sync(trueNanos, clientNanos);
  }

  // ---------------------------------------------------------------- the server and the faults

  /** Restart: an empty server (key, counter and script cache gone). */
  public void restart() {
    server.restart();
  }

  /** ApplyLate: a delayed request reaches the server; its reply goes nowhere. */
  public void applyLate(int index) {
    server.applyLate(index);
  }

  /** An outside write on the lease key (no spec action: see {@code External}). */
  public void external(External write, long ttlMs) {
    server.external(write, ttlMs);
  }

  public void arm(Fault.Armed f) {
    calls.arm(f);
  }

  // ---------------------------------------------------------------- the client's calls

  /** NewAttempt; {@code owner} is shared with an earlier attempt to test NoInheritance. */
  public int newAttempt(int owner) {
    server.addOwner(owner);
    return client.newAttempt();
  }

  /** TryAcquire / Replay including the wait loop, given the sleeps the adapter took. */
  public Outcome tryAcquire(int a, long ttlMs, long waitNanos, List<Sleep> sleeps, List<String> problems) {
    if (!calls.ttlOk(ttlMs)) {
      return Outcome.of("IllegalArgumentException");
    }
    client.attempts.get(a).sent = true;
    return new WaitLoopModel(time, calls, exact, contention).run(a, ttlMs, waitNanos, sleeps, problems);
  }

  /** Renew(h, ttl) through to its outcome. */
  public Outcome renew(int hid, long ttlMs) {
    return calls.renew(hid, ttlMs);
  }

  /** The Renew of each lease of one batch, sent at one instant and answered together; each lease's outcome, in order. */
  public List<Outcome> renewBatch(List<Renewal> renewals) {
    return calls.renewBatch(renewals);
  }

  /** Release(h) through to its outcome. */
  public Outcome release(int hid) {
    return calls.release(hid);
  }

  /** Inspect(a): read-only. */
  public Outcome inspect(int a) {
    return calls.inspect(a);
  }

  /** State(h): the refreshed state. */
  public LeaseState state(int hid) {
    return client.observed(client.handles.get(hid));
  }

  public long remaining(int hid) {
    return client.remaining(client.handles.get(hid));
  }

  /** Effect(h): the fenced store accepts iff token >= the highest it accepted. */
  public boolean effect(int hid) {
    HandleModel h = client.handles.get(hid);
    return store.write(h.tok, h.grant);
  }

  // ---------------------------------------------------------------- read access for the harness

  public int ownerOf(int attempt) {
    return server.ownerOf(attempt);
  }

  public int handleCount() {
    return client.handles.size();
  }

  public int attemptCount() {
    return client.attempts.size();
  }

  public int handleAttempt(int hid) {
    return client.handles.get(hid).attempt;
  }

  public long deadline(int hid) {
    return client.handles.get(hid).dl;
  }

  public long token(int hid) {
    return client.handles.get(hid).tok;
  }

  public long wallExpiry(int hid) {
    return client.handles.get(hid).wallExpiry;
  }

  public boolean sent(int a) {
    return client.attempts.get(a).sent;
  }

  public int liveHandleOf(int a) {
    return client.attempts.get(a).handle;
  }

  public boolean ambiguousRelease(int a) {
    return client.attempts.get(a).ambiguousRelease;
  }

  public long ambiguousRenewCap(int a) {
    return client.attempts.get(a).ambiguousRenewCap;
  }

  public List<Req> delayedRequests() {
    return List.copyOf(server.delayed);
  }

  public int armed() {
    return calls.armed();
  }

  public long clientNow() {
    return time.cnow;
  }

  public long trueNow() {
    return time.now;
  }

  public long lag() {
    return time.lag;
  }

  public int holder() {
    return server.holder;
  }

  /** The first instant the key is gone. */
  public long expiryNanos() {
    return server.expiryNanos();
  }

  public long fence() {
    return server.fence;
  }

  public int storeLast() {
    return store.last();
  }

  public int storeMax() {
    return store.max();
  }

  // ---------------------------------------------------------------- learning on a real server

  /** Adopts what the adapter reported where the model only had an approximation. */
  public void pin(int hid, long deadline, long token, long wallExpiry) {
    HandleModel h = client.handles.get(hid);
    h.dl = deadline;
    h.wallExpiry = wallExpiry;
    if (token > 0) {
      h.tok = token;
    }
  }

  /** Adopts the server's state as read directly (real server only). */
  public void pinServer(int holderAttempt, long expiryNanos, long fenceValue) {
    server.pin(holderAttempt, expiryNanos, fenceValue);
  }

  /**
   * After a concurrent step, which the twin runs one call at a time and so cannot follow: adopts
   * the adapter's handle {@code hid} (opening it if new, as the attempt's live handle).
   */
  public void adoptHandle(int hid, int attempt, int grant, LeaseState state, long deadline, long token, long wallExpiry) {
    if (hid == client.handles.size()) {
      HandleModel h = new HandleModel(attempt);
      h.grant = grant;
      client.handles.add(h);
      client.attempts.get(attempt).handle = hid;
      client.attempts.get(attempt).sent = true;
    }
    HandleModel h = client.handles.get(hid);
    h.hs = state;
    pin(hid, deadline, token, wallExpiry);
  }

  /** After a concurrent step: adopts the server's key as read directly, and its grant count (-1: unknown). */
  public void adoptServer(int holderAttempt, long expiryNanos, long fenceValue, int grantCount) {
    server.pin(holderAttempt, expiryNanos, fenceValue);
    if (grantCount >= 0) {
      server.grants = grantCount;
      server.holderGrant = holderAttempt >= 0 ? grantCount : server.holderGrant;
    }
  }
}
