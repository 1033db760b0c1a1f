package dev.leasehold.testkit.twin;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.sim.LeaseClock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The twin's server: the spec's {@code srv} (holder, expiry, fence, grant), the ghost
 * {@code grants}, the requests still in flight ({@code delayed}) and the scripts over them
 * (AcquireScript, RenewScript, ReleaseScript, InspectReply), with ApplyLate and Restart. The expiry
 * is kept in ms like Redis. The owner token of each attempt (the spec's constant OwnerOf) is here
 * because the script reads it from the key's value.
 *
 * <p>This class is not threadsafe.
 */
final class ServerModel {
  /** What acquire.lua answers (spec Reply): status 1 grant, 2 replay, 0 other value. */
  record Reply(int status, long token, long pttl, int grant, boolean sameOwner) {}

  private final ModelTime time;
  private final FenceMode mode;
  private final boolean exact;
  private final LongSupplier slack;
  private Choices choices = new Choices(List.of());
  private final List<Integer> ownerOf;
  final List<LeaseModel.Req> delayed;
  /** The holding attempt; -1 absent; -2 a value of no attempt (an outside write: another string, or a hash). */
  int holder = -1;
  long expiryMs;
  /** PERSIST from outside: the key does not expire (PTTL -1) until a script sets a TTL again. */
  boolean persistent;
  long fence;
  /** srv.grant: the grant id of the key. */
  int holderGrant;
  int grants;

  ServerModel(ModelTime time, FenceMode mode, boolean exact, LongSupplier slack) {
    this(time, mode, exact, slack, new ArrayList<>(), new ArrayList<>());
  }

  private ServerModel(ModelTime time, FenceMode mode, boolean exact, LongSupplier slack, List<Integer> ownerOf,
      List<LeaseModel.Req> delayed) {
    this.time = time;
    this.mode = mode;
    this.exact = exact;
    this.slack = slack;
    this.ownerOf = ownerOf;
    this.delayed = delayed;
  }

  /** A deep copy on {@code t}; the copy's choices start empty. */
  ServerModel copy(ModelTime t) {
    ServerModel s = new ServerModel(t, mode, exact, slack, new ArrayList<>(ownerOf), new ArrayList<>(delayed));
    s.holder = holder;
    s.expiryMs = expiryMs;
    s.persistent = persistent;
    s.fence = fence;
    s.holderGrant = holderGrant;
    s.grants = grants;
    return s;
  }

  void choices(Choices c) {
    this.choices = c;
  }

  void addOwner(int owner) {
    ownerOf.add(owner);
  }

  int ownerOf(int attempt) {
    return ownerOf.get(attempt);
  }

  /**
   * Expired(srv, now): whether the key is still there, forgetting it if not. On a real server a
   * key within the slack of its expiry is uncertain: the harness explores both answers.
   */
  private boolean live() {
    if (holder == -1) {
      return false;
    }
    if (persistent) {
      return true;
    }
    // Redis forgets a key once its ms clock is past the expiry: it lives to the end of that ms.
    long left = (expiryMs + 1) * 1_000_000L - time.now;
    boolean alive;
    if (!exact && Math.abs(left) <= slack.getAsLong()) {
      alive = choices.choose("key with " + left / 1_000 + " us left still live");
    } else {
      alive = time.nowMs() <= expiryMs;
    }
    if (!alive) {
      holder = -1;
    }
    return alive;
  }

  /** NextToken(srv): the counter plus one; ClockFloor also at least the server's clock in us. */
  private long nextToken() {
    long token = fence + 1;
    if (mode == FenceMode.CLOCK_FLOOR) {
      token = Math.max(token, (LeaseClock.EPOCH_NANOS + time.now) / 1_000L);
    }
    return token;
  }

  /** AcquireScript (acquire.lua). */
  Reply acquireScript(int a, long ttlMs) {
    if (!live()) {
      long token = nextToken();
      fence = token;
      holder = a;
      expiryMs = time.nowMs() + ttlMs;
      persistent = false;
      holderGrant = ++grants;
      return new Reply(1, token, 0, holderGrant, true);   // no PTTL: see acquire.lua
    }
    long pttl = pttl();
    if (holder == a) {
      return new Reply(2, fence, pttl, holderGrant, true);
    }
    return new Reply(0, 0, pttl, 0, holder >= 0 && ownerOf(holder) == ownerOf(a));
  }

  /**
   * PTTL of a live key: -1 when it does not expire. On a real server a key this close to its expiry
   * may be read with 0 ms left (the script runs a little after the step's clock reading).
   */
  private long pttl() {
    if (persistent) {
      return -1;
    }
    long pttl = expiryMs - time.nowMs();
    if (!exact && pttl > 0 && pttl * 1_000_000L <= slack.getAsLong() && choices.choose("key with " + pttl + " ms left read as 0")) {
      return 0;
    }
    return pttl;
  }

  /** An outside write on the key ({@code External}); an overwrite or retype lives {@code ttlMs}. */
  void external(External write, long ttlMs) {
    boolean wasLive = live();
    switch (write) {
      case DELETE -> holder = -1;
      case PERSIST -> persistent = wasLive;
      default -> {
        holder = -2;
        holderGrant = 0;
        expiryMs = time.nowMs() + ttlMs;
        persistent = false;
      }
    }
  }

  /** RenewScript (renew.lua): 1 applied, 0 absent, -1 other. */
  int renewScript(int a, long ttlMs) {
    if (!live()) {
      return 0;
    }
    if (holder != a) {
      return -1;
    }
    expiryMs = time.nowMs() + ttlMs;
    persistent = false;
    return 1;
  }

  /** ReleaseScript (release.lua): 1 deleted, 0 absent, -1 other. */
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

  /** InspectReply(a) as the adapter reports it; the token only where the model knows it exactly. */
  Outcome inspectReply(int a) {
    if (!live()) {
      return Outcome.of("Absent");
    }
    String detail = "mine=" + (holder == a) + ", token=" + (exact ? (fence > 0 ? fence : "none") : "?");
    return new Outcome("Held", detail, Math.max(0, pttl()) * 1_000_000L, Outcome.NO_HANDLE);
  }

  /** Timeout of a request not yet applied: it stays in flight (spec: delayed). */
  void delay(LeaseModel.Req r) {
    delayed.add(r);
  }

  /** Script(s, a, k, t): runs the script of request {@code r}; its status. */
  int script(LeaseModel.Req r) {
    return switch (r.kind()) {
      case "acquire" -> acquireScript(r.attempt(), r.ttlMs()).status();
      case "renew" -> renewScript(r.attempt(), r.ttlMs());
      default -> releaseScript(r.attempt());
    };
  }

  /** ApplyLate: a delayed request reaches the server; its reply goes nowhere. */
  void applyLate(int index) {
    script(delayed.remove(index));
  }

  /** Restart: an empty server (key, counter and script cache gone). */
  void restart() {
    holder = -1;
    fence = 0;
  }

  /** The first instant the key is gone. */
  long expiryNanos() {
    // As the backends read a key without expiry.
    return persistent ? Long.MAX_VALUE / 2 : (expiryMs + 1) * 1_000_000L;
  }

  /** Adopts the server's state as read directly (real server only). */
  void pin(int holderAttempt, long expiryNanos, long fenceValue) {
    holder = holderAttempt;
    if (holderAttempt >= 0) {
      expiryMs = Math.floorDiv(expiryNanos, 1_000_000L) - 1;
    }
    fence = fenceValue;
  }
}
