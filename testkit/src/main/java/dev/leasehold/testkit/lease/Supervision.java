package dev.leasehold.testkit.lease;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseContext;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.LeaseRunner;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.testkit.runner.PropertyViolation;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.sim.VirtualScheduler;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The library's own callers of the port as actions of a chain: a {@link LeaseWatchdog} (action
 * {@code watch}) and a {@link LeaseRunner} (action {@code withLease}) on the chain's clock. Their
 * renewals run on a {@link VirtualScheduler} when {@link #passTime} reaches them, and every call
 * they make goes through the world like the chain's own ({@link Mirrored}, {@link MirroredPort}):
 * the twin follows it and the invariants are checked after it. The watchdog sends its renewals
 * without waiting ({@link Mirrored#renewAsync}, the adapter's own {@code renewAsync}); the gateway
 * holds those of one burst and {@link #passTime} sends them as one batch, which meets one armed
 * fault and which the twin follows as one batch ({@code LeaseModel.renewBatch}), each lease judged
 * and recorded as a renew step. On top, the watchdog must always
 * plan its next renewal before the watched lease runs out ({@code RenewsBeforeExpiry}), report
 * only a real loss ({@code LossIsReal}) and every loss it met ({@code LossIsReported}), and
 * {@code withLease} may return {@code Completed} only if the lease was still ACTIVE when the work
 * ended ({@code WorkResultAgreement}), and may leave the lease held on the server only if its result
 * says so, and never for longer than the TTL asked for ({@code NoLeaseLeftBehind}). And the bounded
 * liveness of both: a watched lease stays ACTIVE through time that passes with no fault
 * ({@code WatchedStaysActive}), every renewal sent has its reply when the step ends
 * ({@code SettlesWhenFaultFree}), and withLease replays an Indeterminate acquire once
 * ({@code IndeterminateIsReplayed}), which is all NoLeaseLeftBehind then excuses.
 *
 * <p>Up to {@link #MAX_WATCHED} registrations are live at once, each of a distinct attempt: two
 * renewals of one attempt in one batch would be two sends before either reply, which the twin's
 * atomic calls cannot follow (the adapter allows it: its ledger caps the pair's flights). Inside
 * {@code withLease} its own registration is the only one.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class Supervision implements AutoCloseable {
  private final ChainCalls calls;
  private final LeaseClock clock;
  private final AdapterAttempts attempts;
  private final AdapterHandles handles;
  private final DistributedLeasePort port;
  private final Oracle oracle;
  private final VirtualScheduler scheduler;
  private final LeaseWatchdog watchdog;
  private final LeaseRunner runner;
  /** The live registrations by handle, oldest first; an ended one stays until its end is judged. */
  private final Map<Integer, Watched> watched = new LinkedHashMap<>();
  /** The renewals of the burst running now, in the order the watchdog sent them: the next batch. */
  private final List<ChainCalls.BatchedRenew> batch = new ArrayList<>();
  /** The implementation's side before the batch's first renewal was sent. */
  private Snapshot batchBefore;
  /** The grid a renewal is sent on (ns): 1 for its exact due instant, a spec tick in a chain that conforms to the spec. */
  private final long sendGridNanos;
  /** The context of the work withLease runs, whose cancellation is the watchdog's loss report there; null outside. */
  private LeaseContext work;
  /** A violation found inside a call of the watchdog or LeaseRunner, for the step's own check. */
  private PropertyViolation deferred;
  /** The drift budget: a renewal gives the handle the watch's TTL less this. */
  private final long driftNanos;
  /** The outcomes of the tries LeaseRunner made in the withLease running now, in order. */
  private final List<String> tries = new ArrayList<>();
  /** The replies of the renewals sent since the last {@link #checkSettled}. */
  private final List<CompletableFuture<RenewOutcome>> replies = new ArrayList<>();

  /**
   * Every call the watchdog and LeaseRunner make goes through {@code calls} to {@code port}, the
   * adapter's; the watchdog wakes at the first instant of {@code sendGridNanos}'s grid at or after a
   * renewal is due (1: when it is due).
   */
  Supervision(ChainCalls calls, LeaseClock clock, AdapterAttempts attempts, AdapterHandles handles,
      DistributedLeasePort port, Oracle oracle, long sendGridNanos, long driftNanos, Callers callers) {
    this.calls = calls;
    this.driftNanos = driftNanos;
    this.sendGridNanos = sendGridNanos;
    this.clock = clock;
    this.attempts = attempts;
    this.handles = handles;
    this.port = port;
    this.oracle = oracle;
    this.scheduler = new VirtualScheduler(clock::clientNanos);
    this.watchdog = callers.watchdog(scheduler, clock::clientNanos);
    this.runner = callers.runner(new MirroredPort(), watchdog);
  }

  /** Live registrations at most: enough for batches of several leases, few enough to read in a shrunk chain. */
  static final int MAX_WATCHED = 3;

  /**
   * One registration's bookkeeping: its handle, the loss the watchdog reported for it, and the
   * outcome of its renew in the burst that ran last.
   */
  private static final class Watched {
    final int hid;
    /** The TTL the watchdog renews with (ns). */
    final long ttlNanos;
    /**
     * Whether a call other than the watchdog's (the chain's renew, release or replay of the
     * attempt, a pause of the whole process) changed the lease since the watchdog last renewed it:
     * its plan may then be too late for the validity left, and only its next renewal tells.
     */
    boolean disturbed;
    /** Null inside withLease, where LeaseRunner holds the registration (the only one live then). */
    LeaseWatchdog.Registration registration;
    /** The loss reported to this registration's listener; null for none. */
    LeaseWatchdog.LeaseLoss reported;
    /** The simple name of the outcome of this registration's renew in the last burst; null if it sent none. */
    String lastRenew;
    /** Whether the last burst renewed this registration or reported its loss. */
    boolean touched;

    Watched(int hid, long ttlNanos) {
      this.hid = hid;
      this.ttlNanos = ttlNanos;
    }
  }

  /** Whether a registration is live (the watchdog keeps at most one renewal scheduled per registration). */
  boolean watching() {
    return watchdog.registrations() > 0;
  }

  /** Whether a watch may start: fewer than {@link #MAX_WATCHED} registrations live, none inside withLease. */
  boolean mayWatch() {
    return work == null && watchdog.registrations() < MAX_WATCHED;
  }

  private boolean live(Watched w) {
    return w.registration == null ? watching() : w.registration.isActive();
  }

  /**
   * watch(h, ttl): from now on the watchdog renews handle {@code hid} with {@code ttlMs}; skipped
   * when a live registration already renews a handle of its attempt (see the class comment).
   */
  String watch(int hid, long ttlMs) {
    watched.values().removeIf(w -> !live(w));
    int attempt = handles.attempt(hid);
    if (watched.values().stream().anyMatch(w -> handles.attempt(w.hid) == attempt)) {
      return "skipped";
    }
    Watched w = new Watched(hid, Duration.ofMillis(ttlMs).toNanos());
    try {
      w.registration = watchdog.watch(new Mirrored(hid), Duration.ofMillis(ttlMs), loss -> lost(w, loss));
    } catch (IllegalArgumentException e) {
      // A TTL the handle's renew would refuse (not above the drift budget): refused before any
      // renewal, and nothing is watched.
      return "refused";
    }
    watched.put(hid, w);
    checkPlan(w);
    return "watching";
  }

  /**
   * Time passes by {@code nanos}; each renewal that falls due runs at its due time (on the send
   * grid: the first tick at or after it in a chain that conforms to the spec, whose time moves in
   * whole ticks; a renewal may always be sent late, and RenewsBeforeExpiry judges the plan, not the
   * send), and the invariants are checked after each call it makes. Returns what the statistics
   * count for the step: {@code ok}, or what the last batch the watchdog sent met ({@link #batchLabel}).
   */
  String passTime(long nanos) {
    String label = "ok";
    long left = nanos;
    long start = clock.clientNanos();
    // WatchedStaysActive is judged only over time that no fault can touch: none armed, no delayed
    // request pending, and no call but the watchdog's on the lease since it last renewed it.
    List<Steady> steady = calls.faultsPending() ? List.of() : watched.values().stream()
        .filter(w -> live(w) && !w.disturbed && reported(w) == null)
        .map(w -> new Steady(w, handles.get(w.hid).state(), handles.get(w.hid).remainingValidity().toNanos()))
        .toList();
    while (scheduler.nextDue() != Long.MAX_VALUE) {
      long wake = Math.floorDiv(scheduler.nextDue() + sendGridNanos - 1, sendGridNanos) * sendGridNanos;
      long toDue = Math.max(0, wake - clock.clientNanos());
      if (toDue > left) {
        break;
      }
      if (toDue > 0) {
        // A lagging client clock may not have reached the task yet: look again after this step.
        calls.advance(toDue);
        left -= toDue;
        continue;
      }
      List<Watched> before = watched.values().stream().filter(this::live).toList();
      for (Watched w : before) {
        w.lastRenew = null;
        w.touched = false;
      }
      scheduler.runNext();
      FaultyGateway.Flushed sent = sendBatch();
      if (sent.leases() > 0) {
        label = batchLabel(sent.fault());
      }
      // A reply judged off the watchdog's executor hands its loss report over to it: run it now,
      // so the report is judged after the renewal that found the loss.
      scheduler.runHandedOver();
      for (Watched w : before) {
        if (w.touched || !live(w)) {
          checkLossReported(w);
          checkPlan(w);
        }
      }
      watched.values().removeIf(w -> !live(w));
    }
    calls.advance(left);
    long passed = clock.clientNanos() - start;
    // The shortest interval, a renewal sent on the next tick of the grid, and time for it before
    // the lease runs out: with no more validity than that, no plan keeps the lease.
    long margin = Math.max(LeaseWatchdog.DEFAULT_MIN_INTERVAL.toNanos(), sendGridNanos) + sendGridNanos;
    for (Steady s : steady) {
      // Each renewal gives the watch's TTL less the drift: a watch whose renewals give less than
      // the margin is promised nothing either.
      long remaining = Math.min(s.remaining(), s.watched().ttlNanos - driftNanos);
      boolean reported = reported(s.watched()) != null;
      LeaseState now = handles.get(s.watched().hid).state();
      guard(() -> CallerInvariants.watchedStaysActive(s.watched().hid, s.state(), remaining, margin, passed, reported,
          now));
    }
    return label;
  }

  /** A registration as time began to pass: its handle's state and validity left then. */
  private record Steady(Watched watched, LeaseState state, long remaining) {}

  /** The loss the watchdog reported for {@code w}: to its listener, or inside withLease to the work's context. */
  private LeaseWatchdog.LeaseLoss reported(Watched w) {
    return w.reported != null ? w.reported : work == null ? null : work.cancellation().orElse(null);
  }

  /**
   * A call that is not the watchdog's changed what the server or the handle holds for
   * {@code attempt} (-1: for every attempt, as a pause of the whole process does): the watchdog's
   * plan no longer bounds the validity left, until it renews again.
   */
  void disturb(int attempt) {
    for (Watched w : watched.values()) {
      if (attempt < 0 || handles.attempt(w.hid) == attempt) {
        w.disturbed = true;
      }
    }
  }

  /**
   * SettlesWhenFaultFree, for the watchdog's calls, when a step ends: every renewal it sent since
   * the last step has its reply, and none is held back unsent.
   */
  void checkSettled() {
    int awaiting = (int) replies.stream().filter(r -> !r.isDone()).count() + batch.size() + calls.queuedRenewals();
    int sent = replies.size();
    replies.clear();
    LivenessInvariants.noCallRunning(awaiting, sent);
  }

  /**
   * A batch the watchdog sent as the statistics count it, by the fault its one call met:
   * batchApplied, batchLost, batchDelayed, batchRefused (any refusal) or batchSlow.
   */
  static String batchLabel(Fault fault) {
    if (fault == null) {
      return "batchApplied";
    }
    return switch (fault) {
      case LOSE_REPLY -> "batchLost";
      case TIMEOUT -> "batchDelayed";
      case REFUSE, REFUSE_BEFORE_SEND, REFUSE_LASTING -> "batchRefused";
      case SLOW_REPLY -> "batchSlow";
    };
  }

  /**
   * Sends the burst's renewals as one batch: the world's one call, the twin's batch, a renew step
   * and the checks for each lease; each registration keeps its lease's outcome.
   */
  private FaultyGateway.Flushed sendBatch() {
    if (batch.isEmpty()) {
      return new FaultyGateway.Flushed(0, null);
    }
    List<ChainCalls.BatchedRenew> sent = List.copyOf(batch);
    batch.clear();
    ChainCalls.BatchReply reply = guarded(() -> calls.renewBatch(sent, batchBefore));
    List<Outcome> outcomes = reply.outcomes();
    for (int i = 0; i < sent.size(); i++) {
      Watched w = watched.get(sent.get(i).handle());
      if (w != null) {
        w.lastRenew = outcomes.get(i).variant();
        w.disturbed &= !w.lastRenew.equals("Renewed");
      }
    }
    return reply.sent();
  }

  /**
   * withLease(attempt, ttl): LeaseRunner acquires, runs work that lets {@code workNanos} pass with
   * the watchdog renewing, then stalls {@code pauseNanos} with nothing renewing (a GC pause), and
   * releases.
   */
  String withLease(int attempt, long ttlMs, long workNanos, long pauseNanos) {
    LeaseRequest request = new LeaseRequest(LeaseWorld.PURPOSE, LeaseWorld.DIGEST, Duration.ZERO,
        Duration.ofMillis(ttlMs), attempts.get(attempt));
    LeaseState[] atEnd = new LeaseState[1];
    boolean[] cancelled = new boolean[1];
    LeaseResult<String> result;
    tries.clear();
    try {
      result = runner.withLease(request, context -> {
        work = context;
        int hid = ((Mirrored) context.handle()).hid;
        Watched w = new Watched(hid, Duration.ofMillis(ttlMs).toNanos());
        watched.put(hid, w);
        checkPlan(w);
        passTime(workNanos);
        calls.advance(pauseNanos);
        atEnd[0] = oracle.twin().state(hid);
        cancelled[0] = context.isCancelled();
        return "done";
      });
    } finally {
      work = null;
      watched.clear();
    }
    String name = result.getClass().getSimpleName();
    List<String> tried = List.copyOf(tries);
    guard(() -> CallerInvariants.indeterminateIsReplayed(tried));
    guard(() -> CallerInvariants.workResultAgreement(name, atEnd[0], cancelled[0]));
    Snapshot after = calls.snapshot();
    if (after.holder() == attempt) {
      long pttl = after.expiryHi() - after.trueNow();
      // Redis keeps a key through the last millisecond of its TTL (gone once its ms clock is past it).
      guard(() -> CallerInvariants.noLeaseLeftBehind(describe(result), saysItMayHold(result, tried), pttl, ttlMs,
          Duration.ofMillis(ttlMs + 1).toNanos() + after.slack()));
    }
    return name;
  }

  /**
   * Whether {@code result} tells its caller that the attempt may still hold the lease: its replay
   * of an Indeterminate try ({@code tried}: every try's outcome) was Indeterminate too or refused
   * unrun, the lease it got was no longer ACTIVE, or the release after the work may not have
   * deleted it. An Indeterminate first try that was never replayed excuses nothing: withLease
   * could have learnt whether the lease was granted, and used and released it.
   */
  private static boolean saysItMayHold(LeaseResult<?> result, List<String> tried) {
    if (result instanceof LeaseResult.NotAcquired<?> n) {
      return n.outcome() instanceof AcquireOutcome.Indeterminate && tried.size() > 1
          || n.outcome() instanceof AcquireOutcome.ReplayedSameOperation r && r.handle().state() != LeaseState.ACTIVE;
    }
    ReleaseOutcome release = releaseOf(result);
    return release instanceof ReleaseOutcome.Indeterminate || release instanceof ReleaseOutcome.Unavailable
        || release instanceof ReleaseOutcome.Overloaded
        || release instanceof ReleaseOutcome.NotActive n && n.state() != LeaseState.RELEASED;
  }

  private static ReleaseOutcome releaseOf(LeaseResult<?> result) {
    if (result instanceof LeaseResult.Completed<?> c) {
      return c.release();
    }
    if (result instanceof LeaseResult.LeaseLostDuringWork<?> l) {
      return l.release();
    }
    return ((LeaseResult.Failed<?>) result).release();
  }

  private static String describe(LeaseResult<?> result) {
    String name = result.getClass().getSimpleName();
    if (result instanceof LeaseResult.NotAcquired<?> n) {
      return name + "(" + n.outcome().getClass().getSimpleName() + ")";
    }
    return name + " with release " + releaseOf(result).getClass().getSimpleName();
  }

  /**
   * After each burst that renewed registration {@code w}, reported its loss or ended it: LossIsReal
   * of a loss it reported (to {@link #lost}, or inside withLease to the work's context), and
   * LossIsReported. A report ends the registration, so each loss is judged once.
   */
  private void checkLossReported(Watched w) {
    LeaseWatchdog.LeaseLoss loss = reported(w);
    if (loss != null) {
      LeaseState twin = oracle.twin().state(w.hid);
      guard(() -> CallerInvariants.lossIsReal(loss.state(), twin));
    }
    LeaseState now = handles.get(w.hid).state();
    guard(() -> CallerInvariants.lossIsReported(w.lastRenew, now, loss != null, live(w)));
  }

  /**
   * RenewsBeforeExpiry, whenever the watchdog has just (re)planned a renewal of {@code w}'s ACTIVE
   * lease. The scheduler shows the watchdog's next wake, the earliest of its registrations' planned
   * renewals: with several live it bounds {@code w}'s own plan from below, so the check is exact
   * for one registration and may pass a late plan of one of several until it is the next wake.
   */
  private void checkPlan(Watched w) {
    if (scheduler.nextDue() == Long.MAX_VALUE || !live(w) || oracle.twin().state(w.hid) != LeaseState.ACTIVE) {
      return;
    }
    long due = scheduler.nextDue() - clock.clientNanos();
    long remaining = oracle.twin().remaining(w.hid);
    guard(() -> CallerInvariants.renewsBeforeExpiry(due, remaining, LeaseWatchdog.DEFAULT_MIN_INTERVAL.toNanos()));
  }

  /** The listener of {@link #watch}; the loss is judged after the burst that reported it ({@link #checkLossReported}). */
  private void lost(Watched w, LeaseWatchdog.LeaseLoss loss) {
    w.reported = loss;
    w.touched = true;
  }

  /**
   * After a call the watchdog or LeaseRunner made: the invariants, then the adapter's own outcome
   * (an IllegalArgumentException is rethrown, as the adapter threw it).
   */
  private <T> T checked(Class<T> type) {
    Object out = calls.lastCall();
    guard(calls::check);
    if (out instanceof RuntimeException e) {
      throw e;
    }
    return type.cast(out);
  }

  /**
   * Runs {@code check}, keeping its violation for the end of the step too: the watchdog and
   * LeaseRunner must not be the ones to decide what a violation inside them means.
   */
  private void guard(Runnable check) {
    guarded(() -> {
      check.run();
      return null;
    });
  }

  private <T> T guarded(Supplier<T> check) {
    try {
      return check.get();
    } catch (PropertyViolation v) {
      deferred = deferred == null ? v : deferred;
      throw v;
    }
  }

  /** Called by the step's check: a violation found inside the step fails it. */
  void rethrow() {
    if (deferred != null) {
      PropertyViolation v = deferred;
      deferred = null;
      throw v;
    }
  }

  @Override
  public void close() {
    watchdog.close();
  }

  /** Handle {@code hid} as the watchdog and LeaseRunner see it: their renew and release are the chain's steps. */
  private final class Mirrored extends ReadThroughHandle {
    private final int hid;

    Mirrored(int hid) {
      this.hid = hid;
    }

    @Override
    LeaseHandle real() {
      return handles.get(hid);
    }

    @Override
    public RenewOutcome renew(Duration ttl) {
      calls.renew(hid, ttl.toMillis());
      RenewOutcome out = checked(RenewOutcome.class);
      Watched w = watched.get(hid);
      if (w != null) {
        w.lastRenew = out.getClass().getSimpleName();
        w.touched = true;
        w.disturbed &= !w.lastRenew.equals("Renewed");
      }
      return out;
    }

    /**
     * The adapter's own renewAsync: a renewal the gateway holds joins the burst's batch, sent when
     * the burst ends ({@link #sendBatch}). One answered here with nothing held (not sent, or a
     * handle that renews on the calling thread, whose call is made already) is followed at once
     * as a batch of its own, unless renewals are already held for this burst; then it joins them
     * (one not sent changes nothing the twin would see between them).
     */
    @Override
    public CompletionStage<RenewOutcome> renewAsync(Duration ttl) {
      if (batch.isEmpty()) {
        batchBefore = calls.snapshot();
      }
      Watched w = watched.get(hid);
      if (w != null) {
        w.touched = true;
      }
      LeaseState stateBefore = real().state();
      int held = calls.queuedRenewals();
      CompletableFuture<RenewOutcome> reply = realRenewAsync(ttl);
      replies.add(reply);
      batch.add(new ChainCalls.BatchedRenew(hid, ttl.toMillis(), stateBefore, reply));
      if (reply.isDone() && held == 0 && calls.queuedRenewals() == 0) {
        sendBatch();
      }
      return reply;
    }

    @Override
    public ReleaseOutcome release() {
      calls.release(hid);
      return checked(ReleaseOutcome.class);
    }

    @Override
    public void close() {
      if (state().isLive()) {
        release();
      }
    }
  }

  /** The adapter as LeaseRunner sees it: each tryAcquire is the chain's step, and a handle it opens is {@link Mirrored}. */
  private final class MirroredPort implements DistributedLeasePort {
    @Override
    public AcquireOutcome tryAcquire(LeaseRequest request) {
      int attempt = attempts.indexOf(request.attempt());
      String op = (oracle.twin().sent(attempt) ? ActionName.REPLAY : ActionName.TRY_ACQUIRE).chainName();
      calls.acquire(op, attempt, request.leaseTtl().toMillis(), request.waitTimeout().toMillis(),
          () -> port.tryAcquire(request));
      AcquireOutcome out = checked(AcquireOutcome.class);
      tries.add(out.getClass().getSimpleName());
      if (out instanceof AcquireOutcome.Acquired a) {
        return new AcquireOutcome.Acquired(new Mirrored(handles.id(a.handle())));
      }
      if (out instanceof AcquireOutcome.ReplayedSameOperation r) {
        return new AcquireOutcome.ReplayedSameOperation(new Mirrored(handles.id(r.handle())));
      }
      return out;
    }

    @Override
    public LeaseAttempt newAttempt(String operationId) {
      return port.newAttempt(operationId);
    }

    @Override
    public InspectOutcome inspect(LeaseInspection inspection) {
      return port.inspect(inspection);
    }

    @Override
    public LeaseGuarantee guarantee() {
      return port.guarantee();
    }
  }
}
