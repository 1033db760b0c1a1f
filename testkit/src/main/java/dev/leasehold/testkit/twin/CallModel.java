package dev.leasehold.testkit.twin;

import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.fault.Fault;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * One client call through to the outcome it returns (the spec's ResultOf), at the granularity of
 * one Java call: where the spec splits a call into Send, Apply or Refuse, LoseReply or Timeout, and
 * Deliver, one method here takes all of them in the order the next armed fault dictates (the
 * faults armed on the gateway, in order, one per call). The server's side is {@link ServerModel},
 * what the reply does to the handle is {@link ClientModel}; this class decides which of them runs
 * and classifies the result.
 *
 * <p>This class is not threadsafe.
 */
final class CallModel {
  private final ModelTime time;
  private final ServerModel server;
  private final ClientModel client;
  private final long drift;
  private final long contention;
  private final Deque<Fault.Armed> faults;
  /** The time the call being made takes between Apply and Deliver (a slow reply); 0 for most. */
  private long slowNanos;

  CallModel(ModelTime time, ServerModel server, ClientModel client, long drift, long contention,
      Deque<Fault.Armed> faults) {
    this.time = time;
    this.server = server;
    this.client = client;
    this.drift = drift;
    this.contention = contention;
    this.faults = faults;
  }

  /** A copy over the copied sides, with the same faults armed. */
  CallModel copy(ModelTime t, ServerModel s, ClientModel c) {
    return new CallModel(t, s, c, drift, contention, new ArrayDeque<>(faults));
  }

  void arm(Fault.Armed f) {
    faults.addLast(f);
  }

  /** The next armed fault, if any: a slow reply is no fault to the outcome, only time passing after Apply. */
  private Fault next() {
    Fault.Armed f = faults.pollFirst();
    if (f != null && f.fault() == Fault.SLOW_REPLY) {
      slowNanos = f.nanos();
      return null;
    }
    slowNanos = 0;
    return f == null ? null : f.fault();
  }

  /** Tick between Apply and Deliver of a slow reply. */
  private void replyTakes() {
    time.tick(slowNanos);
    slowNanos = 0;
  }

  int armed() {
    return faults.size();
  }

  /** TtlOk(t): a TTL at or below the drift budget is rejected before any I/O. */
  boolean ttlOk(long ttlMs) {
    return ttlMs * 1_000_000L > drift;
  }

  /** The outcome of a call that the next fault kept from running: refused, or never sent; null if it may run. */
  private Outcome refused(Fault f) {
    if (f == Fault.REFUSE_BEFORE_SEND || f == Fault.REFUSE_LASTING) {
      return Outcome.of("Unavailable");
    }
    if (f == Fault.REFUSE) {
      return Outcome.timed("Overloaded", contention);
    }
    return null;
  }

  /** One send of ACQUIRE for attempt {@code a} (TryAcquire or Replay) through to its outcome. */
  Outcome acquire(int a, long ttlMs) {
    long start = time.cnow;
    long wallStart = time.wall();
    Fault f = next();
    Outcome refused = refused(f);
    if (refused != null) {
      return refused;
    }
    if (f == Fault.TIMEOUT) {
      server.delay(new LeaseModel.Req("acquire", a, ttlMs));
      return Outcome.of("Indeterminate");
    }
    ServerModel.Reply r = server.acquireScript(a, ttlMs);
    if (f == Fault.LOSE_REPLY) {
      return Outcome.of("Indeterminate");
    }
    replyTakes();
    // Granted(a, l): a grant gets the request TTL (its reply has no PTTL), a replay min(request TTL,
    // reply PTTL). A key without expiry (PTTL -1, an outside PERSIST) outlives any budget: the TTL.
    long granted = r.status() == 1 || r.pttl() == -1 ? ttlMs : Math.min(ttlMs, r.pttl());
    if (r.status() == 1) {
      int h = client.deliverAcquire(a, r.token(), r.grant(), start, wallStart, granted, -1);
      return new Outcome("Acquired", "", 0, h);
    }
    if (r.status() == 2) {
      int live = client.attempts.get(a).handle;
      int h = client.deliverAcquire(a, r.token(), r.grant(), start, wallStart, granted, live);
      return new Outcome("ReplayedSameOperation", "", 0, h);
    }
    if (r.sameOwner()) {
      return Outcome.of("OwnerOperationConflict");
    }
    return Outcome.timed("Contended", r.pttl() > 0 ? r.pttl() * 1_000_000L : contention);
  }

  /** Renew(h, ttl) of handle {@code hid} through to its outcome; NotActive (nothing sent) unless CanRenew. */
  Outcome renew(int hid, long ttlMs) {
    if (!ttlOk(ttlMs)) {
      return Outcome.of("IllegalArgumentException");
    }
    HandleModel h = client.handles.get(hid);
    if (!client.canRenew(h)) {
      return Outcome.of("NotActive", h.hs.name());
    }
    long start = time.cnow;
    long wallStart = time.wall();
    return send(new LeaseModel.Req("renew", h.attempt, ttlMs),
        () -> client.timeoutRenew(h, start, ttlMs) == LeaseState.LOST ? Outcome.of("Lost") : Outcome.of("Indeterminate"),
        status -> renewed(h, status, start, wallStart, ttlMs));
  }

  /**
   * A batch of renewals (the watchdog's burst, one RENEW call) through to each lease's outcome:
   * the spec's Renew of each lease at one instant, sent together and meeting one fault together.
   * A lease that may not be renewed (or whose TTL is refused) is answered at once and not sent;
   * if none is sent, no call is made and no fault is taken. Refused: each is refused. Timeout:
   * each stays delayed, in order, and may apply late on its own. Otherwise each lease's script runs
   * in order, a slow reply's time passes once, and each reply is delivered, or each is lost. Two
   * renewals of one attempt would be two sends before either reply, which this atomic call cannot
   * follow: the leases must be of distinct attempts.
   */
  List<Outcome> renewBatch(List<LeaseModel.Renewal> renewals) {
    Outcome[] out = new Outcome[renewals.size()];
    List<Integer> sent = new ArrayList<>();
    for (int i = 0; i < renewals.size(); i++) {
      LeaseModel.Renewal r = renewals.get(i);
      HandleModel h = client.handles.get(r.handle());
      if (!ttlOk(r.ttlMs())) {
        out[i] = Outcome.of("IllegalArgumentException");
      } else if (!client.canRenew(h)) {
        out[i] = Outcome.of("NotActive", h.hs.name());
      } else if (sent.stream().anyMatch(j -> client.handles.get(renewals.get(j).handle()).attempt == h.attempt)) {
        throw new IllegalArgumentException("two renewals of attempt " + h.attempt + " in one batch");
      } else {
        sent.add(i);
      }
    }
    if (sent.isEmpty()) {
      return List.of(out);
    }
    long start = time.cnow;
    long wallStart = time.wall();
    Fault f = next();
    Outcome refused = refused(f);
    int[] status = new int[renewals.size()];
    for (int i : sent) {
      LeaseModel.Renewal r = renewals.get(i);
      HandleModel h = client.handles.get(r.handle());
      LeaseModel.Req request = new LeaseModel.Req("renew", h.attempt, r.ttlMs());
      if (refused != null) {
        out[i] = refused;
      } else if (f == Fault.TIMEOUT) {
        server.delay(request);
      } else {
        status[i] = server.script(request);
      }
    }
    if (refused != null) {
      return List.of(out);
    }
    if (f != Fault.TIMEOUT) {
      replyTakes();
    }
    for (int i : sent) {
      LeaseModel.Renewal r = renewals.get(i);
      HandleModel h = client.handles.get(r.handle());
      if (f == Fault.TIMEOUT || f == Fault.LOSE_REPLY) {
        out[i] = client.timeoutRenew(h, start, r.ttlMs()) == LeaseState.LOST ? Outcome.of("Lost") : Outcome.of("Indeterminate");
      } else {
        out[i] = renewed(h, status[i], start, wallStart, r.ttlMs());
      }
    }
    return List.of(out);
  }

  /** DeliverRenew and its ResultOf: Renewed only if the handle is ACTIVE with the new deadline. */
  private Outcome renewed(HandleModel h, int status, long start, long wallStart, long ttlMs) {
    client.deliverRenew(h, status, start, wallStart, ttlMs);
    if (status != 1 || h.hs == LeaseState.LOST) {
      return Outcome.of("Lost");
    }
    if (h.hs != LeaseState.ACTIVE) {
      return Outcome.of("Indeterminate");
    }
    return Outcome.timed("Renewed", Math.max(0, h.dl - time.cnow));
  }

  /** Release(h) of handle {@code hid} through to its outcome; NotActive (nothing sent) unless it is live. */
  Outcome release(int hid) {
    HandleModel h = client.handles.get(hid);
    if (!client.observed(h).isLive()) {
      return Outcome.of("NotActive", h.hs.name());
    }
    return send(new LeaseModel.Req("release", h.attempt, 0),
        () -> {
          client.timeoutRelease(h);
          return Outcome.of("Indeterminate");   // it was sent: never NotActive, even if LOST by now
        },
        status -> {
          client.deliverRelease(h, status);
          return Outcome.of(status == 1 ? "Released" : status == 0 ? "AlreadyAbsent" : "NotOwner");
        });
  }

  /**
   * Sends a renew or release with the next armed fault: Refuse (nothing ran), or Apply and
   * LoseReply, or Timeout before Apply (the request stays delayed), both ending in {@code timedOut};
   * else Deliver of the script's status.
   */
  private Outcome send(LeaseModel.Req request, Supplier<Outcome> timedOut, IntFunction<Outcome> delivered) {
    Fault f = next();
    Outcome refused = refused(f);
    if (refused != null) {
      return refused;
    }
    int status = 0;
    if (f == Fault.TIMEOUT) {
      server.delay(request);
    } else {
      status = server.script(request);
      replyTakes();
    }
    return f == Fault.TIMEOUT || f == Fault.LOSE_REPLY ? timedOut.get() : delivered.apply(status);
  }

  /** Inspect(a): read-only; any fault that lets it be sent leaves it Indeterminate. */
  Outcome inspect(int a) {
    Fault f = next();
    if (f == null) {
      Outcome reply = server.inspectReply(a);
      replyTakes();
      return reply;
    }
    // Kept from running by any refusal, a read answers Unavailable (the adapter does not tell them apart).
    if (refused(f) != null) {
      return Outcome.of("Unavailable");
    }
    return Outcome.of("Indeterminate");
  }
}
