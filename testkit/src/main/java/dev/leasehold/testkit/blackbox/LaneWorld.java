package dev.leasehold.testkit.blackbox;

import static dev.leasehold.testkit.blackbox.BlackBoxProperty.CertaintyIsHonest;
import static dev.leasehold.testkit.blackbox.BlackBoxProperty.FencedEffects;
import static dev.leasehold.testkit.blackbox.BlackBoxProperty.MutualExclusion;
import static dev.leasehold.testkit.blackbox.BlackBoxProperty.NoLeaseLeftBehind;
import static dev.leasehold.testkit.blackbox.BlackBoxProperty.NoSendAfterEnd;
import static dev.leasehold.testkit.blackbox.BlackBoxProperty.ValidityWithinServerLease;

import dev.leasehold.testkit.blackbox.LaneAction.Delayed;
import dev.leasehold.testkit.blackbox.LaneAction.LoseReply;
import dev.leasehold.testkit.blackbox.LaneAction.Pause;
import dev.leasehold.testkit.blackbox.LaneAction.Release;
import dev.leasehold.testkit.blackbox.LaneAction.Renew;
import dev.leasehold.testkit.blackbox.LaneAction.Replay;
import dev.leasehold.testkit.blackbox.LaneAction.State;
import dev.leasehold.testkit.blackbox.LaneAction.Tick;
import dev.leasehold.testkit.blackbox.LaneAction.TryAcquire;
import dev.leasehold.testkit.blackbox.LockClient.Grant;
import dev.leasehold.testkit.blackbox.LockLibrary.ServerLock;
import dev.leasehold.testkit.redis.TcpProxy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One chain of the black-box lane: a library's clients, each behind its own fault-injecting proxy
 * to one real server, and what the kit knows from outside (each client's open grant and the windows
 * in which the server must still hold it). Steps run one at a time, in real time; the one
 * exception is a call with delayed replies ({@link Delayed}), during which the other client
 * tries to acquire.
 *
 * <p>Every judgement is on evidence with a known direction of error: a grant's window runs from the
 * reply to the send plus the TTL (the server set the expiry in between, so the key lives at least
 * that long), and each server read is bracketed by the instants before and after it.
 *
 * <p>This class is not threadsafe: one chain runs on one thread, which alone judges and reads the
 * server. Each client's calls run on a thread of that client's own (many libraries tie a lock to the
 * thread that took it), which is how a call with delayed replies can be out while the other client
 * calls.
 */
final class LaneWorld implements AutoCloseable {
  static final String RESOURCE = "blackbox";
  /** The server stores expiries in whole ms: judgements allow this much for rounding. */
  private static final long SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  private final LockLibrary library;
  private final ServerView server;
  private final String key;
  private final Judge judge;
  /** The TTL the other client asks for while a call with delayed replies is out. */
  private final long contendTtlMs;
  private final List<Party> parties = new ArrayList<>();
  private OptionalLong highestToken = OptionalLong.empty();

  LaneWorld(LockLibrary library, ServerView server, int redisPort, int clients, Duration commandTimeout,
      long contendTtlMs, Judge judge) throws Exception {
    this.library = library;
    this.server = server;
    this.key = library.key(RESOURCE);
    this.judge = judge;
    this.contendTtlMs = contendTtlMs;
    try {
      for (int i = 0; i < clients; i++) {
        parties.add(Party.open(library, key, redisPort, i, commandTimeout));
      }
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  boolean enabled(LaneAction action) {
    if (action instanceof TryAcquire a) {
      return party(a.client()).hold == null;
    } else if (action instanceof Replay r) {
      Hold hold = party(r.client()).hold;
      return library.traits().replays() && hold != null && !hold.certain();
    } else if (action instanceof Renew r) {
      return library.traits().renews() && party(r.client()).hold != null;
    } else if (action instanceof Release r) {
      return party(r.client()).hold != null;
    } else if (action instanceof State s) {
      return library.traits().clientValidity() && party(s.client()).hold != null;
    } else if (action instanceof LoseReply l) {
      return !party(l.client()).loseNext;
    } else if (action instanceof Delayed d) {
      return !party(d.client()).loseNext && enabled(d.call());
    }
    return true;
  }

  /** How long the lock on the server has left, whoever holds it; empty when it is free or never expires. */
  OptionalLong lockMsLeft() {
    ServerLock lock = read().lock;
    return lock.holder().isPresent() && lock.pttlMs() >= 0 ? OptionalLong.of(lock.pttlMs()) : OptionalLong.empty();
  }

  /** The client whose grant the lock on the server is, by the kit's knowledge, if any. */
  OptionalInt serverHolder() {
    ServerLock lock = read().lock;
    for (int c = 0; c < parties.size(); c++) {
      Hold hold = parties.get(c).hold;
      if (hold != null && hold.id().isPresent() && lock.heldBy(hold.id().get())) {
        return OptionalInt.of(c);
      }
    }
    return OptionalInt.empty();
  }

  /** Whether another client would try to acquire while a call of client {@code c} with delayed replies is out. */
  boolean canContend(int c) {
    return contender(c).isPresent();
  }

  /** A client the kit knows holds a grant that the lock on the server is no longer, if any. */
  OptionalInt outlivedHolder() {
    ServerLock lock = read().lock;
    for (int c = 0; c < parties.size(); c++) {
      Hold hold = parties.get(c).hold;
      if (hold != null && hold.id().isPresent() && !lock.heldBy(hold.id().get())) {
        return OptionalInt.of(c);
      }
    }
    return OptionalInt.empty();
  }

  /** Runs {@code action}; returns the label of what it saw, for the statistics. */
  String apply(LaneAction action) throws Exception {
    if (action instanceof TryAcquire a) {
      return tryAcquire(a.client(), a.ttlMs(), false);
    } else if (action instanceof Replay r) {
      return tryAcquire(r.client(), r.ttlMs(), false);
    } else if (action instanceof Renew r) {
      return renew(r.client(), r.ttlMs());
    } else if (action instanceof Release r) {
      return release(r.client());
    } else if (action instanceof State s) {
      return state(s.client());
    } else if (action instanceof Tick t) {
      Thread.sleep(t.ms());
      return "ticked";
    } else if (action instanceof Pause p) {
      TcpProxy proxy = party(p.client()).proxy;
      proxy.blackhole(true);
      try {
        Thread.sleep(p.ms());
      } finally {
        proxy.blackhole(false);
      }
      return party(p.client()).hold == null ? "paused" : "paused-holding";
    } else if (action instanceof LoseReply l) {
      party(l.client()).loseNext = true;
      return "armed";
    } else if (action instanceof Delayed d) {
      party(d.client()).delayNextMs = d.ms();
      return apply(d.call());
    }
    throw new IllegalArgumentException("unknown action " + action);
  }

  /** Checks what must hold between steps: no client sent anything for a lock it released. */
  void checkBetweenSteps() {
    for (int i = 0; i < parties.size(); i++) {
      checkNoSendAfterEnd(i);
    }
  }

  /**
   * @param contending whether this is an attempt made while another client's call with delayed
   *     replies is out: that call may delete its own lock at any moment, so a lock gone between
   *     this attempt's reads is no evidence against the attempt
   */
  private String tryAcquire(int c, long ttlMs, boolean contending) throws Exception {
    Party p = party(c);
    checkNoSendAfterEnd(c);
    p.watchFrom = -1;
    // A replay of an acquire whose outcome was unknown: the first send may be the one that set the
    // expiry, and a replay never extends it.
    Hold retried = p.hold;
    Seen before = read();
    // Tokens are compared with those of grants returned before this call began: one returned while
    // it was out may have been issued after it.
    OptionalLong highestBefore = highestToken;
    long start = System.nanoTime();
    Grant grant;
    try {
      Callable<Grant> attempt = () -> p.client.tryAcquire(RESOURCE, Duration.ofMillis(ttlMs));
      if (contending) {
        p.delayedMs = 0;
        grant = p.call(attempt);
      } else {
        grant = call(c, attempt);
      }
    } catch (Exception e) {
      long until = start + TimeUnit.MILLISECONDS.toNanos(ttlMs);
      p.hold = Hold.uncertain(retried == null ? until : Math.min(retried.surelyUntil(), until),
          p.holderId());
      if (!contending) {
        checkGrantsDuringKept(c, start, "acquire", MutualExclusion);
      }
      return p.outcome("uncertain");
    }
    long end = System.nanoTime();
    if (!contending) {
      checkGrantsDuringKept(c, start, "acquire", MutualExclusion);
    }
    Optional<String> id = p.holderId();
    if (grant instanceof Grant.Acquired acquired) {
      checkExclusion(c, start, end, "acquire");
      checkToken(c, acquired.token(), highestBefore);
      long until = start + acquired.ttl().toNanos();
      p.hold = new Hold(true, end, retried == null ? until : Math.min(retried.surelyUntil(), until), id);
      checkBeliefAfterGrant(c);
      return p.outcome("acquired");
    }
    Seen after = read();
    if (!contending) {
      judge.met(CertaintyIsHonest);
      checkNothingDeleted(before, after, "client " + c + " was told not acquired");
    }
    if (retried != null) {
      // This call changed nothing; whether the first one was applied is still unknown.
      return p.outcome("not-acquired");
    }
    p.hold = null;
    if (id.isPresent()) {
      judge.met(NoLeaseLeftBehind);
      judge.check(!after.lock.heldBy(id.get()), NoLeaseLeftBehind,
          "client " + c + " was told not acquired, yet the server holds the lock for it: " + after.lock);
    }
    return p.outcome("not-acquired");
  }

  private String renew(int c, long ttlMs) throws Exception {
    Party p = party(c);
    Hold held = p.hold;
    Seen before = read();
    long start = System.nanoTime();
    long until = start + TimeUnit.MILLISECONDS.toNanos(ttlMs);
    // While it is out, and after it unless it says renewed, the renew may have run and set the
    // expiry as short as its own TTL.
    p.hold = held.cappedAt(until);
    boolean renewed;
    try {
      renewed = call(c, () -> p.client.renew(RESOURCE, Duration.ofMillis(ttlMs)));
    } catch (Exception e) {
      checkOthersLockKept(c, before, read(), "renew", MutualExclusion);
      checkGrantsDuringKept(c, start, "renew", MutualExclusion);
      return p.outcome("uncertain");
    }
    BlackBoxProperty broken = renewed ? MutualExclusion : CertaintyIsHonest;
    checkOthersLockKept(c, before, read(), "renew", broken);
    checkGrantsDuringKept(c, start, "renew", broken);
    if (renewed) {
      // The last write decides the expiry, and every earlier call of this client has returned.
      checkExclusion(c, start, System.nanoTime(), "renew");
      p.hold = held.renewedUntil(until);
      checkBeliefAfterGrant(c);
      return p.outcome("renewed");
    }
    // "The hold is gone" is not "this call changed nothing": a renew may have run and shortened the
    // expiry before the client gave up on it (Leasehold then says Lost). It is judged as a cap.
    return p.outcome("not-renewed");
  }

  private String release(int c) throws Exception {
    Party p = party(c);
    Hold hold = p.hold;
    Seen before = read();
    long start = System.nanoTime();
    // From its start the release may have ended the hold: a grant to another client from then on
    // overlaps nothing.
    p.hold = hold.cappedAt(start);
    boolean released;
    try {
      released = call(c, () -> p.client.release(RESOURCE));
    } catch (Exception e) {
      checkOthersLockKept(c, before, read(), "release", MutualExclusion);
      checkGrantsDuringKept(c, start, "release", MutualExclusion);
      return p.outcome("uncertain");
    } finally {
      p.hold = null;
    }
    Seen after = read();
    BlackBoxProperty broken = released ? MutualExclusion : CertaintyIsHonest;
    checkOthersLockKept(c, before, after, "release", broken);
    checkGrantsDuringKept(c, start, "release", broken);
    if (released) {
      if (hold.certain() && hold.id().isPresent()) {
        judge.met(NoLeaseLeftBehind);
        judge.check(!after.lock.heldBy(hold.id().get()), NoLeaseLeftBehind,
            "client " + c + " was told released, yet the server still holds the lock for it: " + after.lock);
      }
    } else {
      judge.met(CertaintyIsHonest);
      checkNothingDeleted(before, after, "client " + c + " was told not released");
    }
    // Watched from after a round trip on another connection that began after the release
    // returned: a request read later was sent after the client was told the lock is gone.
    p.watchFrom = after.to;
    judge.met(NoSendAfterEnd);
    return p.outcome(released ? "released" : "not-released");
  }

  private String state(int c) {
    return checkBelief(c);
  }

  /**
   * ValidityWithinServerLease, for a library with client-side validity: asked after every grant
   * and by the state step. A belief that runs out while the server is read is not judged.
   */
  private String checkBelief(int c) {
    Party p = party(c);
    long asked = System.nanoTime();
    Optional<Duration> belief = p.ask(() -> p.client.belief(RESOURCE));
    if (belief.isEmpty() || belief.get().isZero() || belief.get().isNegative()) {
      return "believes-free";
    }
    long until = asked + belief.get().toNanos();
    Seen now = read();
    if (now.to - until >= 0) {
      return "ran-out-while-reading";
    }
    judge.met(ValidityWithinServerLease);
    Optional<String> id = p.hold == null ? p.holderId() : p.hold.id();
    // A client that cannot name its holder is judged on the key's expiry only.
    boolean mine = id.isEmpty() ? now.lock.holder().isPresent() : now.lock.heldBy(id.get());
    judge.check(mine, ValidityWithinServerLease, "client " + c + " believes it holds the lock for "
        + belief.get().toMillis() + " ms more, but the server says " + now.lock
        + (now.lock.holder().isPresent() ? " by another client" : ""));
    long serverExpiryAtMost = now.to + TimeUnit.MILLISECONDS.toNanos(now.lock.pttlMs());
    judge.check(now.lock.pttlMs() < 0 || serverExpiryAtMost + SLACK_NANOS - until >= 0,
        ValidityWithinServerLease, "client " + c + " believes it holds the lock "
            + TimeUnit.NANOSECONDS.toMillis(until - serverExpiryAtMost) + " ms longer than the server keeps it");
    return "believes-held";
  }

  private void checkBeliefAfterGrant(int c) {
    if (library.traits().clientValidity()) {
      checkBelief(c);
    }
  }

  /** A grant to {@code c} in {@code [start, end]} while another's grant surely still stood. */
  private void checkExclusion(int c, long start, long end, String call) {
    for (int d = 0; d < parties.size(); d++) {
      Hold other = parties.get(d).hold;
      if (d == c || other == null || !other.certain()) {
        continue;
      }
      judge.met(MutualExclusion);
      boolean overlap = other.grantedAt() - start < 0 && end + SLACK_NANOS - other.surelyUntil() < 0;
      judge.check(!overlap, MutualExclusion, "client " + c + "'s " + call + " was granted while "
          + "client " + d + "'s grant, not released, had at least "
          + TimeUnit.NANOSECONDS.toMillis(other.surelyUntil() - end) + " ms left on the server");
    }
  }

  private void checkToken(int c, OptionalLong token, OptionalLong highestBefore) {
    if (!library.traits().fenced()) {
      return;
    }
    judge.check(token.isPresent(), FencedEffects, "client " + c + "'s grant carries no token");
    if (token.isEmpty()) {
      return;
    }
    if (highestBefore.isPresent()) {
      judge.met(FencedEffects);
      judge.check(token.getAsLong() > highestBefore.getAsLong(), FencedEffects, "client " + c
          + " was granted token " + token.getAsLong() + " after token " + highestBefore.getAsLong() + " was issued");
    }
    highestToken = OptionalLong.of(Math.max(token.getAsLong(), highestToken.orElse(Long.MIN_VALUE)));
  }

  /**
   * A call of client {@code c} must leave another client's live lock as it was: read just before
   * the call, held by another client's id with time left, it must still be there after the call
   * for at least that time, unless it could have expired in between. A call that removed or
   * shortened it breaks {@code broken}: MutualExclusion at once (the other client still believes
   * it holds the lock, and a third may now be granted it), or CertaintyIsHonest when the call said
   * it changed nothing. Judged without waiting for a later grant to land in the gap.
   */
  private void checkOthersLockKept(int c, Seen before, Seen after, String call, BlackBoxProperty broken) {
    Optional<String> holder = before.lock.holder();
    if (holder.isEmpty() || before.lock.pttlMs() == -2) {
      return;
    }
    OptionalInt owner = otherHolder(c, holder.get());
    if (owner.isEmpty()) {
      return;
    }
    // -1: no expiry, so it cannot have run out.
    long expiresAtLeast = before.lock.pttlMs() < 0 ? Long.MAX_VALUE
        : before.from + TimeUnit.MILLISECONDS.toNanos(before.lock.pttlMs());
    if (before.lock.pttlMs() >= 0 && after.to + SLACK_NANOS - expiresAtLeast >= 0) {
      return;
    }
    judge.met(broken);
    boolean kept = after.lock.heldBy(holder.get()) && (after.lock.pttlMs() < 0
        || before.lock.pttlMs() >= 0 && after.to + TimeUnit.MILLISECONDS.toNanos(after.lock.pttlMs()) + SLACK_NANOS
            - expiresAtLeast >= 0);
    judge.check(kept, broken, "client " + c + "'s " + call + (broken == CertaintyIsHonest ? ", which said it changed nothing," : "")
        + " left client " + owner.getAsInt() + "'s lock, held with " + before.lock.pttlMs()
        + " ms left just before, " + (after.lock.heldBy(holder.get()) ? "with " + after.lock.pttlMs() + " ms left"
        : "gone: " + after.lock) + " just after (" + TimeUnit.NANOSECONDS.toMillis(after.to - before.from) + " ms later)");
  }

  /**
   * A grant made to another client while client {@code c}'s call was out (a call with delayed
   * replies, during which the other client tries to acquire) must outlast that call: after it, the
   * lock is still on the server for at least the grant's time, unless that may have run out. A call
   * that removed or shortened it (a check, then an act a round trip later) breaks {@code broken}.
   */
  private void checkGrantsDuringKept(int c, long start, String call, BlackBoxProperty broken) {
    for (int d = 0; d < parties.size(); d++) {
      Hold other = parties.get(d).hold;
      if (d == c || other == null || !other.certain() || other.grantedAt() - start < 0 || other.id().isEmpty()) {
        continue;
      }
      Seen now = read();
      if (now.to + SLACK_NANOS - other.surelyUntil() >= 0) {
        continue;
      }
      judge.met(broken);
      boolean kept = now.lock.heldBy(other.id().get()) && (now.lock.pttlMs() < 0
          || now.to + TimeUnit.MILLISECONDS.toNanos(now.lock.pttlMs()) + SLACK_NANOS - other.surelyUntil() >= 0);
      judge.check(kept, broken, "client " + c + "'s " + call + (broken == CertaintyIsHonest ? ", which said it changed nothing," : "")
          + " with its replies held " + party(c).delayedMs + " ms left client " + d + "'s lock, granted while the "
          + call + " was out and surely held " + TimeUnit.NANOSECONDS.toMillis(other.surelyUntil() - now.to)
          + " ms more, " + (now.lock.heldBy(other.id().get()) ? "with " + now.lock.pttlMs() + " ms left" : "gone: " + now.lock)
          + " just after the " + call + " returned");
    }
  }

  /**
   * Runs client {@code c}'s call. With its replies delayed ({@link Delayed}), the call is left to
   * run on the client's thread and, once the server has answered its first command (so that command ran
   * first), another client that holds nothing tries to acquire again and again until the call
   * returns (each attempt judged as any other).
   */
  private <T> T call(int c, Callable<T> call) throws Exception {
    Party p = party(c);
    long delayMs = p.delayNextMs;
    p.delayNextMs = 0;
    p.delayedMs = delayMs;
    if (delayMs == 0) {
      return p.call(call);
    }
    p.proxy.delayReplies(delayMs);
    try {
      OptionalInt contender = contender(c);
      if (contender.isEmpty()) {
        return p.call(call);
      }
      long answered = p.proxy.repliesRead();
      Future<T> out = p.start(call);
      while (!out.isDone() && p.proxy.repliesRead() == answered) {
        Thread.sleep(1);
      }
      Party other = party(contender.getAsInt());
      while (!out.isDone() && other.hold == null) {
        tryAcquire(contender.getAsInt(), contendTtlMs, true);
        Thread.sleep(1);
      }
      return Party.await(out);
    } finally {
      p.proxy.delayReplies(0);
    }
  }

  /** The first client other than {@code c} that holds nothing: the one that tries to acquire while a call of {@code c} is out. */
  private OptionalInt contender(int c) {
    for (int d = 0; d < parties.size(); d++) {
      if (d != c && parties.get(d).hold == null) {
        return OptionalInt.of(d);
      }
    }
    return OptionalInt.empty();
  }

  /** The client other than {@code c} whose lock {@code id} is, by its open grant or by what it names. */
  private OptionalInt otherHolder(int c, String id) {
    for (int d = 0; d < parties.size(); d++) {
      Party other = parties.get(d);
      if (d == c) {
        continue;
      }
      Optional<String> named = other.hold != null ? other.hold.id() : other.holderId();
      if (named.isPresent() && named.get().equals(id)) {
        return OptionalInt.of(d);
      }
    }
    return OptionalInt.empty();
  }

  /** A held key that is gone although it cannot have expired was deleted by the call in between. */
  private void checkNothingDeleted(Seen before, Seen after, String told) {
    if (before.lock.holder().isEmpty() || after.lock.holder().isPresent() || before.lock.pttlMs() < 0) {
      return;
    }
    long expiresAtLeast = before.from + TimeUnit.MILLISECONDS.toNanos(before.lock.pttlMs());
    judge.check(after.to + SLACK_NANOS - expiresAtLeast >= 0, CertaintyIsHonest, told
        + ", yet the lock, held with " + before.lock.pttlMs() + " ms left, was gone "
        + TimeUnit.NANOSECONDS.toMillis(after.to - before.from) + " ms later");
  }

  private void checkNoSendAfterEnd(int c) {
    Party p = party(c);
    if (p.watchFrom == -1) {
      return;
    }
    List<String> sent = p.watch.since(p.watchFrom);
    judge.check(sent.isEmpty(), NoSendAfterEnd,
        "client " + c + " sent " + sent.size() + " request(s) naming the lock after its release returned: " + sent);
  }

  private Seen read() {
    long from = System.nanoTime();
    ServerLock lock = library.read(server, key);
    return new Seen(lock, from, System.nanoTime());
  }

  private Party party(int c) {
    return parties.get(c);
  }

  @Override
  public void close() {
    for (Party p : parties) {
      p.close();
    }
  }

  /** A server read and the instants before and after it. */
  private record Seen(ServerLock lock, long from, long to) {}

  /**
   * A grant as the kit knows it from outside. {@code surelyUntil}: before this instant the server
   * cannot have expired it (the send plus the TTL of the call that last set the expiry, or the
   * earliest such of the calls that may have).
   */
  private record Hold(boolean certain, long grantedAt, long surelyUntil, Optional<String> id) {
    /** Leaves the holder identity out: it may be a secret owner token. */
    @Override
    public String toString() {
      return (certain ? "grant" : "unknown outcome") + " surely until " + surelyUntil;
    }

    static Hold uncertain(long surelyUntil, Optional<String> id) {
      return new Hold(false, 0, surelyUntil, id);
    }

    Hold cappedAt(long until) {
      return new Hold(certain, grantedAt, Math.min(surelyUntil, until), id);
    }

    Hold renewedUntil(long until) {
      return new Hold(certain, grantedAt, until, id);
    }
  }

  /** One client, its proxy and what the kit knows of it. */
  private static final class Party implements AutoCloseable {
    final TcpProxy proxy;
    final RequestWatch watch;
    /** Runs every call of this client, one at a time. */
    final ExecutorService thread;
    LockClient client;
    Hold hold;
    /** From when a request naming the lock is a violation; -1 while the client may hold it. */
    long watchFrom = -1;
    boolean loseNext;
    /** The reply delay for the call about to run, in ms; 0 for none. */
    long delayNextMs;
    /** The reply delay the last call ran with, in ms. */
    long delayedMs;
    /** Whether the last call lost a reply (the proxy discarded bytes of it). */
    boolean lostReply;

    private Party(TcpProxy proxy, RequestWatch watch, int index) {
      this.proxy = proxy;
      this.watch = watch;
      this.thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "black-box-client-" + index);
        t.setDaemon(true);
        return t;
      });
    }

    static Party open(LockLibrary library, String key, int redisPort, int index, Duration commandTimeout)
        throws Exception {
      TcpProxy proxy = TcpProxy.start("client-" + index, redisPort);
      RequestWatch watch = new RequestWatch(key);
      proxy.tapRequests(watch::accept);
      Party party = new Party(proxy, watch, index);
      try {
        party.client = library.connect(new LockLibrary.Endpoint("127.0.0.1", proxy.port(), commandTimeout));
      } catch (Exception e) {
        party.thread.shutdownNow();
        proxy.close();
        throw e;
      }
      return party;
    }

    /** Runs {@code call} on the client's thread, with the reply loss armed for it, and waits for it. */
    <T> T call(Callable<T> call) throws Exception {
      return await(start(call));
    }

    /** Starts {@code call} on the client's thread, with the reply loss armed for it. */
    <T> Future<T> start(Callable<T> call) {
      lostReply = false;
      if (!loseNext) {
        return thread.submit(call);
      }
      loseNext = false;
      long dropped = proxy.droppedReplyBytes();
      proxy.dropReplies(true);
      return thread.submit(() -> {
        try {
          return call.call();
        } finally {
          proxy.dropReplies(false);
          lostReply = proxy.droppedReplyBytes() > dropped;
        }
      });
    }

    /** The identity of this client's hold, asked on its thread. */
    Optional<String> holderId() {
      return ask(() -> client.holderId(RESOURCE));
    }

    /** A question that sends nothing (no fault applies), asked on the client's thread. */
    <T> T ask(Callable<T> question) {
      try {
        return await(thread.submit(question));
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    static <T> T await(Future<T> out) throws Exception {
      try {
        return out.get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof Error error) {
          throw error;
        }
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
    }

    /** The statistics label of a call's outcome, marked when the call lost a reply or had it delayed. */
    String outcome(String label) {
      return lostReply ? label + "-after-lost-reply" : delayedMs > 0 ? label + "-after-delayed-reply" : label;
    }

    @Override
    public void close() {
      try {
        if (client != null) {
          client.close();
        }
      } catch (Exception ignored) {
        // The chain is over; a client that fails to close leaves nothing the next chain sees.
      } finally {
        thread.shutdownNow();
        proxy.close();
      }
    }
  }
}
