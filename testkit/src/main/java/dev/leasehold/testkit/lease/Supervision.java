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
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.sim.VirtualScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * The library's own callers of the port as actions of a chain: a {@link LeaseWatchdog} (action
 * {@code watch}) and a {@link LeaseRunner} (action {@code withLease}) on the chain's clock. Their
 * renewals run on a {@link VirtualScheduler} when {@link #passTime} reaches them, and every call
 * they make goes through the world like the chain's own ({@link Mirrored}, {@link MirroredPort}):
 * the twin follows it and the invariants are checked after it. On top, the watchdog must always
 * plan its next renewal before the watched lease runs out ({@code RenewsBeforeExpiry}), report
 * only a real loss ({@code LossIsReal}) and every loss it met ({@code LossIsReported}), and
 * {@code withLease} may return {@code Completed} only if the lease was still ACTIVE when the work
 * ended ({@code WorkResultAgreement}), and may leave the lease held on the server only if its result
 * says so, and never for longer than the TTL asked for ({@code NoLeaseLeftBehind}).
 *
 * <p>This class is not threadsafe; one chain runs on one thread. One registration is live at a time.
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
  /** The handle the live registration renews; -1 for none. */
  private int watched = -1;
  /** The loss the watchdog reported to {@link #lost} for the live registration; null for none. */
  private LeaseWatchdog.LeaseLoss reported;
  /** The outcome of the watchdog's renew in the renewal that ran last; null if it sent none. */
  private RenewOutcome lastRenew;
  /** The context of the work withLease runs, whose cancellation is the watchdog's loss report there; null outside. */
  private LeaseContext work;
  /** A violation found inside a call of the watchdog or LeaseRunner, for the step's own check. */
  private PropertyViolation deferred;

  /** Every call the watchdog and LeaseRunner make goes through {@code calls} to {@code port}, the adapter's. */
  Supervision(ChainCalls calls, LeaseClock clock, AdapterAttempts attempts, AdapterHandles handles,
      DistributedLeasePort port, Oracle oracle) {
    this.calls = calls;
    this.clock = clock;
    this.attempts = attempts;
    this.handles = handles;
    this.port = port;
    this.oracle = oracle;
    this.scheduler = new VirtualScheduler(clock::clientNanos);
    this.watchdog = LeaseWatchdog.builder().executor(scheduler).monotonicNanos(clock::clientNanos).build();
    this.runner = new LeaseRunner(new MirroredPort(), watchdog, false, null);
  }

  /** Whether a registration is live (the watchdog keeps at most one renewal scheduled per registration). */
  boolean watching() {
    return watchdog.registrations() > 0;
  }

  /** watch(h, ttl): from now on the watchdog renews handle {@code hid} with {@code ttlMs}. */
  String watch(int hid, long ttlMs) {
    watched = hid;
    reported = null;
    try {
      watchdog.watch(new Mirrored(hid), Duration.ofMillis(ttlMs), this::lost);
    } catch (IllegalArgumentException e) {
      // A TTL the handle's renew would refuse (not above the drift budget): refused before any
      // renewal, and nothing is watched.
      watched = -1;
      return "refused";
    }
    checkPlan();
    return "watching";
  }

  /**
   * Time passes by {@code nanos}; each renewal that falls due runs at its due time, and the
   * invariants are checked after each call it makes.
   */
  void passTime(long nanos) {
    long left = nanos;
    while (scheduler.nextDue() != Long.MAX_VALUE) {
      long toDue = Math.max(0, scheduler.nextDue() - clock.clientNanos());
      if (toDue > left) {
        break;
      }
      if (toDue > 0) {
        // A lagging client clock may not have reached the task yet: look again after this step.
        calls.advance(toDue);
        left -= toDue;
        continue;
      }
      boolean live = watching();
      lastRenew = null;
      scheduler.runNext();
      if (live) {
        checkLossReported();
      }
      checkPlan();
    }
    calls.advance(left);
  }

  /**
   * withLease(attempt, ttl): LeaseRunner acquires, runs work that lets {@code workNanos} pass with
   * the watchdog renewing, then stalls {@code pauseNanos} with nothing renewing (a GC pause), and
   * releases.
   */
  String withLease(int attempt, long ttlMs, long workNanos, long pauseNanos) {
    LeaseRequest request = new LeaseRequest(LeaseWorld.PURPOSE, LeaseWorld.DIGEST, Duration.ZERO,
        Duration.ofMillis(ttlMs), attempts.get(attempt));
    reported = null;
    LeaseState[] atEnd = new LeaseState[1];
    boolean[] cancelled = new boolean[1];
    LeaseResult<String> result;
    try {
      result = runner.withLease(request, context -> {
        work = context;
        watched = ((Mirrored) context.handle()).hid;
        checkPlan();
        passTime(workNanos);
        calls.advance(pauseNanos);
        atEnd[0] = oracle.twin().state(watched);
        cancelled[0] = context.isCancelled();
        return "done";
      });
    } finally {
      work = null;
    }
    String name = result.getClass().getSimpleName();
    guard(() -> CallerInvariants.workResultAgreement(name, atEnd[0], cancelled[0]));
    Snapshot after = calls.snapshot();
    if (after.holder() == attempt) {
      long pttl = after.expiryHi() - after.trueNow();
      // Redis keeps a key through the last millisecond of its TTL (gone once its ms clock is past it).
      guard(() -> CallerInvariants.noLeaseLeftBehind(describe(result), saysItMayHold(result), pttl, ttlMs,
          Duration.ofMillis(ttlMs + 1).toNanos() + after.slack()));
    }
    return name;
  }

  /**
   * Whether {@code result} tells its caller that the attempt may still hold the lease: the last
   * try was Indeterminate, the lease it got was no longer ACTIVE, or the release after the work
   * may not have deleted it.
   */
  private static boolean saysItMayHold(LeaseResult<?> result) {
    if (result instanceof LeaseResult.NotAcquired<?> n) {
      return n.outcome() instanceof AcquireOutcome.Indeterminate
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
   * After each renewal the watchdog ran for a live registration: LossIsReal of a loss it reported
   * (to {@link #lost}, or inside withLease to the work's context), and LossIsReported. A report
   * ends the registration, so each loss is judged once.
   */
  private void checkLossReported() {
    LeaseWatchdog.LeaseLoss loss = reported != null ? reported : work == null ? null : work.cancellation().orElse(null);
    if (loss != null) {
      LeaseState twin = oracle.twin().state(watched);
      guard(() -> CallerInvariants.lossIsReal(loss.state(), twin));
    }
    LeaseState now = handles.get(watched).state();
    String outcome = lastRenew == null ? null : lastRenew.getClass().getSimpleName();
    guard(() -> CallerInvariants.lossIsReported(outcome, now, loss != null, watching()));
  }

  /** RenewsBeforeExpiry, whenever the watchdog has just (re)planned a renewal of an ACTIVE lease. */
  private void checkPlan() {
    if (scheduler.nextDue() == Long.MAX_VALUE || watched < 0 || oracle.twin().state(watched) != LeaseState.ACTIVE) {
      return;
    }
    long due = scheduler.nextDue() - clock.clientNanos();
    long remaining = oracle.twin().remaining(watched);
    guard(() -> CallerInvariants.renewsBeforeExpiry(due, remaining, LeaseWatchdog.DEFAULT_MIN_INTERVAL.toNanos()));
  }

  /** The listener of {@link #watch}; the loss is judged after the renewal that reported it ({@link #checkLossReported}). */
  private void lost(LeaseWatchdog.LeaseLoss loss) {
    reported = loss;
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
    try {
      check.run();
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
  private final class Mirrored implements LeaseHandle {
    private final int hid;

    Mirrored(int hid) {
      this.hid = hid;
    }

    private LeaseHandle real() {
      return handles.get(hid);
    }

    @Override
    public RenewOutcome renew(Duration ttl) {
      calls.renew(hid, ttl.toMillis());
      lastRenew = checked(RenewOutcome.class);
      return lastRenew;
    }

    @Override
    public void checkTtl(Duration ttl) {
      real().checkTtl(ttl);
    }

    @Override
    public ReleaseOutcome release() {
      calls.release(hid);
      return checked(ReleaseOutcome.class);
    }

    @Override
    public LeaseState state() {
      return real().state();
    }

    @Override
    public Duration remainingValidity() {
      return real().remainingValidity();
    }

    @Override
    public Instant observedServerExpiry() {
      return real().observedServerExpiry();
    }

    @Override
    public OptionalLong fencingToken() {
      return real().fencingToken();
    }

    @Override
    public LeaseGuarantee guarantee() {
      return real().guarantee();
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
