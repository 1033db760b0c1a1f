package dev.leasehold.testkit.lease;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.testkit.fault.Backend;
import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.sim.LeaseClock;
import dev.leasehold.testkit.sim.VirtualScheduler;
import dev.leasehold.testkit.twin.FencedStore;
import dev.leasehold.testkit.twin.LeaseModel;
import dev.leasehold.testkit.twin.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One chain of {@link BatchMachine}: {@link #RESOURCES} resources (lease keys) on one simulated
 * server behind one {@link FaultyGateway}, one adapter, and the library's {@link LeaseWatchdog}
 * renewing handles of any of them on the chain's virtual clock. A wake's renewals go out as one
 * call that meets one armed fault, so a batch holds leases of several keys. The spec is per
 * resource and resources are independent, so each resource has its own twin ({@link Oracle} over a
 * {@link LeaseModel}): a batch is followed on each resource's twin as that resource's part of the
 * one call (the same fault, the same instant), each lease judged against its own resource's twin,
 * and every resource's invariants are checked after each lease and each step. On top, the
 * watchdog's own properties: LossIsReal, LossIsReported and RenewsBeforeExpiry.
 *
 * <p>An armed fault meets the next call, the chain's own or a wake's batch; the twin of the
 * resource it was for takes it with that call, and a slow reply's time passes for every twin.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
public final class BatchWorld implements AutoCloseable {
  /** The resources of a chain: three, so that a batch can hold leases of several keys and a lease of each answers differently. */
  public static final int RESOURCES = 3;
  /** Attempts per resource at most: enough for a contender and a successor. */
  static final int MAX_ATTEMPTS = 4;
  /** Live registrations at most: two per resource (an old handle still watched beside a newer one). */
  static final int MAX_WATCHED = 2 * RESOURCES;

  /** One resource: its key, the adapter's attempts and handles on it, and its own twin. */
  private static final class Resource {
    final int index;
    final String digest;
    final LeaseKeys keys;
    final AdapterAttempts attempts = new AdapterAttempts();
    final AdapterHandles handles;
    final Oracle oracle;
    /** No effects are written in these chains; the oracle's FencedEffects reads an empty store. */
    final FencedStore store = new FencedStore();

    Resource(int index, WorldConfig config, Backend backend, LeaseClock clock) {
      this.index = index;
      this.digest = "sha256:" + Integer.toHexString(0xa0 + index).repeat(32);
      this.keys = new LeaseKeys("leasehold:lease:v1:{" + LeaseWorld.PURPOSE + ":" + digest + "}");
      this.handles = new AdapterHandles(backend);
      this.oracle = new Oracle(config, backend, clock, handles, attempts.owners(), LeaseWorld.CONTENTION);
    }
  }

  /** One lease of the burst being sent: which resource and handle, the TTL, and what the adapter answered. */
  private record BatchedRenew(Resource resource, int handle, long ttlMs, LeaseState stateBefore, boolean queued,
      CompletableFuture<RenewOutcome> reply) {}

  /** One registration of the watchdog, on handle {@code handle} of {@code resource}. */
  private static final class Watched {
    final Resource resource;
    final int handle;
    LeaseWatchdog.Registration registration;
    /** The loss reported to this registration's listener; null for none. */
    LeaseWatchdog.LeaseLoss reported;
    /** The outcome variant of this registration's renewal in the last burst; null if it sent none. */
    String lastRenew;
    /** Whether the last burst renewed this registration or reported its loss. */
    boolean touched;

    Watched(Resource resource, int handle) {
      this.resource = resource;
      this.handle = handle;
    }
  }

  /** What a tick's batches showed, ranked: the statistics count each tick by its most telling batch. */
  private enum Shown { NONE, ONE_LEASE, SEVERAL, MIXED }

  private final Backend backend;
  private final LeaseClock clock;
  private final FaultyGateway gateway;
  private final DistributedLeasePort port;
  private final List<Resource> resources = new ArrayList<>();
  private final VirtualScheduler scheduler;
  private final LeaseWatchdog watchdog;
  private final List<Watched> watched = new ArrayList<>();
  /** The renewals of the burst running now, in the order the watchdog sent them. */
  private final List<BatchedRenew> burst = new ArrayList<>();
  /** The snapshot of each resource before the burst's first renewal. */
  private final List<Snapshot> burstBefore = new ArrayList<>();
  /** The fault armed for the next batch; null for none. */
  private Fault.Armed armed;

  BatchWorld(WorldConfig config, long seed) {
    if (!config.exact()) {
      throw new IllegalArgumentException("batches of several resources run on the simulated server's virtual time");
    }
    this.backend = config.backend().get();
    this.clock = backend.clock();
    this.gateway = new FaultyGateway(backend.gateway());
    gateway.gatherRenewals();
    gateway.passTimeWith(clock::advance);
    gateway.stampCallsWith(clock::trueNanos);
    this.port = config.ports().create(gateway, clock, config.drift(), config.fenceMode(), new SeededRandom(seed),
        (keys, d) -> {
          throw new IllegalStateException("these chains never wait");
        });
    for (int r = 0; r < RESOURCES; r++) {
      resources.add(new Resource(r, config, backend, clock));
    }
    this.scheduler = new VirtualScheduler(clock::clientNanos);
    this.watchdog = LeaseWatchdog.builder().executor(scheduler).monotonicNanos(clock::clientNanos).build();
  }

  private Resource resource(long index) {
    return resources.get((int) (index % RESOURCES));
  }

  // ------------------------------------------------------------------ preconditions

  boolean mayAcquire(long resource) {
    return resource(resource).attempts.size() < MAX_ATTEMPTS;
  }

  boolean hasHandle(long resource) {
    return !resource(resource).handles.isEmpty();
  }

  boolean mayWatch(long resource) {
    return mayWatch(resource(resource));
  }

  /** Whether some resource's newest handle may be watched. */
  boolean mayWatchAny() {
    return resources.stream().anyMatch(this::mayWatch);
  }

  private boolean mayWatch(Resource r) {
    dropEnded();
    return !r.handles.isEmpty() && watched.size() < MAX_WATCHED
        && watched.stream().noneMatch(w -> w.resource == r && w.handle == r.handles.size() - 1);
  }

  /** One fault at a time, while the watchdog has something to renew: most then meet a batch. */
  boolean mayArm() {
    dropEnded();
    return armed == null && !watched.isEmpty();
  }

  boolean hasDelayed() {
    return !gateway.delayed().isEmpty();
  }

  // ------------------------------------------------------------------ the steps

  /** tryAcquire of a new attempt on {@code resource}, without waiting. */
  String acquire(long resource, long ttlMs) {
    Resource r = resource(resource);
    int owner = r.attempts.add(port, -1);
    int attempt = r.oracle.twin().newAttempt(owner);
    Snapshot before = snapshot(r);
    Outcome actual;
    int handle = -1;
    try {
      AcquireOutcome raw = port.tryAcquire(new LeaseRequest(LeaseWorld.PURPOSE, r.digest, Duration.ZERO,
          Duration.ofMillis(ttlMs), r.attempts.get(attempt)));
      actual = Outcomes.of(raw, r.handles::id);
      handle = actual.handle();
      r.handles.returned(handle, attempt);
    } catch (IllegalArgumentException e) {
      actual = Outcome.of("IllegalArgumentException");
    }
    Fault.Armed met = metBy(r);
    List<String> problems = new ArrayList<>();
    r.oracle.follow(m -> m.tryAcquire(attempt, ttlMs, 0, List.of(), problems), actual);
    problems.forEach(r.oracle::problem);
    slowForOthers(met, r);
    checkAll(r, new StepEvent(ActionName.TRY_ACQUIRE.chainName(), attempt, handle, actual, before, null));
    return actual.variant();
  }

  /** Release of {@code resource}'s newest handle. */
  String release(long resource) {
    Resource r = resource(resource);
    int handle = r.handles.size() - 1;
    Snapshot before = snapshot(r);
    LeaseState stateBefore = before.handles().get(handle).state();
    Outcome actual = Outcomes.of(r.handles.get(handle).release());
    Fault.Armed met = metBy(r);
    r.oracle.follow(m -> m.release(handle), actual);
    slowForOthers(met, r);
    checkAll(r, new StepEvent(ActionName.RELEASE.chainName(), r.handles.attempt(handle), handle, actual, before,
        stateBefore));
    return actual.variant();
  }

  /** From now on the watchdog renews {@code resource}'s newest handle with {@code ttlMs}. */
  String watch(long resource, long ttlMs) {
    String out = watch(resource(resource), ttlMs);
    checkPlans();
    checkAll(null, null);
    return out;
  }

  /**
   * From now on the watchdog renews every resource's newest handle not watched yet with
   * {@code ttlMs}, from the same instant: an application watching the leases it holds, whose
   * renewals fall due together. Returns how many registrations it made.
   */
  String watchAll(long ttlMs) {
    long made = resources.stream().filter(this::mayWatch).map(r -> watch(r, ttlMs)).filter("watching"::equals)
        .count();
    checkPlans();
    checkAll(null, null);
    return "watching" + made;
  }

  private String watch(Resource r, long ttlMs) {
    Watched w = new Watched(r, r.handles.size() - 1);
    try {
      w.registration = watchdog.watch(new Mirrored(w), Duration.ofMillis(ttlMs), loss -> {
        w.reported = loss;
        w.touched = true;
      });
    } catch (IllegalArgumentException e) {
      // A TTL the handle's renew would refuse: refused before any renewal, nothing is watched.
      return "refused";
    }
    watched.add(w);
    return "watching";
  }

  /** The next batch meets {@code fault}; a slow reply takes {@code nanos}. */
  String arm(Fault fault, long nanos) {
    armed = new Fault.Armed(fault, nanos);
    gateway.arm(armed);
    return "ok";
  }

  /** Someone else's command on {@code resource}'s key: the holding invariants are waived for it from now on. */
  String external(External write, long resource, long ttlMs) {
    Resource r = resource(resource);
    Snapshot before = snapshot(r);
    backend.external(write, r.keys, ttlMs);
    r.oracle.twin().external(write, ttlMs);
    r.oracle.waive(LeaseProperty.ActiveHoldsKey, LeaseProperty.ValidityWithinServerLease,
        LeaseProperty.MutualExclusion);
    checkAll(r, StepEvent.none(write.action(), before));
    return "ok";
  }

  /**
   * Delayed renewal {@code index} (of all resources', in the order they were delayed) reaches the
   * server; its resource's twin applies its own delayed request of the same rank.
   */
  String applyLate(long index) {
    List<FaultyGateway.Delayed> delayed = gateway.delayed();
    int i = (int) (index % delayed.size());
    Resource r = owning(delayed.get(i).ownership());
    int rank = (int) delayed.subList(0, i).stream().filter(d -> owning(d.ownership()) == r).count();
    Snapshot before = snapshot(r);
    gateway.applyLate(i);
    r.oracle.twin().applyLate(rank);
    checkAll(r, StepEvent.none(ActionName.APPLY_LATE.chainName(), before));
    return "ok";
  }

  /**
   * After a call of the chain's own on {@code r}: if it met the armed fault (the gateway took it),
   * {@code r}'s twin takes it too, for the call it follows next. Returns the fault met, or null.
   */
  private Fault.Armed metBy(Resource r) {
    if (armed == null || gateway.armedCount() > 0) {
      return null;
    }
    Fault.Armed met = armed;
    armed = null;
    r.oracle.twin().arm(met);
    return met;
  }

  /** A slow reply's time passes for every resource: the twins other than {@code r}'s see it too. */
  private void slowForOthers(Fault.Armed met, Resource r) {
    if (met != null && met.fault() == Fault.SLOW_REPLY) {
      resources.stream().filter(o -> o != r).forEach(o -> o.oracle.twin().tick(met.nanos()));
    }
  }

  private Resource owning(String ownership) {
    return resources.stream().filter(r -> r.attempts.withOwnership(ownership) >= 0).findFirst()
        .orElseThrow(() -> new IllegalStateException("a delayed request of no attempt"));
  }

  /**
   * Time passes by {@code nanos}; each wake of the watchdog that falls due runs at its due time,
   * its burst goes out as one batch, and everything is checked after it. Returns the label of the
   * most telling batch (see {@link #label}).
   */
  String tick(long nanos) {
    Shown shown = Shown.NONE;
    String label = "ok";
    long left = nanos;
    while (scheduler.nextDue() != Long.MAX_VALUE) {
      long toDue = Math.max(0, scheduler.nextDue() - clock.clientNanos());
      if (toDue > left) {
        break;
      }
      if (toDue > 0) {
        advance(toDue);
        left -= toDue;
        continue;
      }
      dropEnded();
      for (Watched w : watched) {
        w.lastRenew = null;
        w.touched = false;
      }
      List<Watched> before = List.copyOf(watched);
      burstBefore.clear();
      resources.forEach(r -> burstBefore.add(snapshot(r)));
      scheduler.runNext();
      Fault met = armed == null ? null : armed.fault();
      List<BatchedRenew> sent = List.copyOf(burst);
      burst.clear();
      List<Outcome> outcomes = sendBatch(sent);
      // A reply judged off the watchdog's executor hands its loss report over to it: run it now.
      scheduler.runHandedOver();
      for (Watched w : before) {
        if (w.touched || !w.registration.isActive()) {
          checkLossReported(w);
        }
      }
      checkPlans();
      List<String> queuedVariants = new ArrayList<>();
      for (int i = 0; i < sent.size(); i++) {
        if (sent.get(i).queued()) {
          queuedVariants.add(outcomes.get(i).variant());
        }
      }
      if (!queuedVariants.isEmpty()) {
        Shown now = queuedVariants.size() < 2 ? Shown.ONE_LEASE
            : queuedVariants.stream().distinct().count() > 1 ? Shown.MIXED : Shown.SEVERAL;
        if (now.compareTo(shown) >= 0) {
          shown = now;
          label = label(now, met);
        }
      }
    }
    advance(left);
    checkPlans();
    checkAll(null, null);
    return label;
  }

  /**
   * A tick's label: {@code batch<Fault>} for a batch of one lease ({@link Supervision#batchLabel}),
   * {@code several<Fault>} for one of several leases (the same fault names), and
   * {@code severalMixed} for one of several leases whose outcomes differ (an applied batch with a
   * lease renewed and another lost): the batches where each lease must get its own reply.
   */
  private static String label(Shown shown, Fault fault) {
    String one = Supervision.batchLabel(fault);
    return switch (shown) {
      case ONE_LEASE -> one;
      case SEVERAL -> "several" + one.substring("batch".length());
      case MIXED -> "severalMixed";
      case NONE -> "ok";
    };
  }

  /**
   * The burst's call (one for all its leases), then each resource's part of it on that resource's
   * twin, with the call's fault if the call carried a lease of that resource, and each lease
   * checked as a renew step against its own resource. Returns each lease's outcome, in order.
   */
  private List<Outcome> sendBatch(List<BatchedRenew> sent) {
    if (sent.isEmpty()) {
      return List.of();
    }
    FaultyGateway.Flushed flushed = gateway.flushRenewals();
    Fault.Armed met = flushed.leases() > 0 ? armed : null;
    if (flushed.leases() > 0) {
      armed = null;
    }
    List<Outcome> actual = sent.stream().map(b -> Outcomes.replied(b.reply())).toList();
    for (Resource r : resources) {
      List<Integer> mine = new ArrayList<>();
      for (int i = 0; i < sent.size(); i++) {
        if (sent.get(i).resource() == r) {
          mine.add(i);
        }
      }
      boolean carried = mine.stream().anyMatch(i -> sent.get(i).queued());
      if (met != null && carried) {
        r.oracle.twin().arm(met);
      }
      if (!mine.isEmpty()) {
        List<LeaseModel.Renewal> renewals = mine.stream()
            .map(i -> new LeaseModel.Renewal(sent.get(i).handle(), sent.get(i).ttlMs())).toList();
        r.oracle.followAll(m -> m.renewBatch(renewals), mine.stream().map(actual::get).toList());
      }
      if (met != null && !carried && met.fault() == Fault.SLOW_REPLY) {
        // The call's reply took this long: a twin with no lease in it sees the time pass too.
        r.oracle.twin().tick(met.nanos());
      }
    }
    for (int i = 0; i < sent.size(); i++) {
      BatchedRenew b = sent.get(i);
      Resource r = b.resource();
      checkAll(r, new StepEvent(ActionName.RENEW.chainName(), r.handles.attempt(b.handle()), b.handle(),
          actual.get(i), burstBefore.get(r.index), b.stateBefore()));
    }
    return actual;
  }

  // ------------------------------------------------------------------ the checks

  /** After a burst that renewed {@code w}, reported its loss or ended it: LossIsReal and LossIsReported. */
  private void checkLossReported(Watched w) {
    LeaseState twin = w.resource.oracle.twin().state(w.handle);
    if (w.reported != null) {
      LeaseState reported = w.reported.state();
      CallerInvariants.lossIsReal(reported, twin);
    }
    LeaseState now = w.resource.handles.get(w.handle).state();
    CallerInvariants.lossIsReported(w.lastRenew, now, w.reported != null, w.registration.isActive());
  }

  /**
   * RenewsBeforeExpiry for every live registration of an ACTIVE lease: the watchdog's next wake
   * comes before that lease runs out. Every renewal here is answered within its wake, so a live
   * registration always has a renewal planned, and the next wake (the earliest plan) bounds it.
   */
  private void checkPlans() {
    dropEnded();
    for (Watched w : watched) {
      if (w.resource.oracle.twin().state(w.handle) != LeaseState.ACTIVE) {
        continue;
      }
      long due = scheduler.nextDue() == Long.MAX_VALUE ? Long.MAX_VALUE : scheduler.nextDue() - clock.clientNanos();
      long remaining = w.resource.oracle.twin().remaining(w.handle);
      CallerInvariants.renewsBeforeExpiry(due, remaining, LeaseWatchdog.DEFAULT_MIN_INTERVAL.toNanos());
    }
  }

  /** Every resource's oracle after a step or a lease: {@code r} with {@code event}, the others as they stand. */
  private void checkAll(Resource r, StepEvent event) {
    for (Resource each : resources) {
      StepEvent e = each == r ? event : StepEvent.none("none", null);
      each.oracle.measureSlack();
      each.oracle.check(e, snapshot(each), each.store);
      for (LeaseHandle h : each.handles) {
        CallerInvariants.guaranteeAsStated(h.guarantee(), port.guarantee(), h.fencingToken().isPresent());
      }
    }
  }

  private Snapshot snapshot(Resource r) {
    return Snapshot.of(backend, r.keys, clock, r.attempts, r.handles);
  }

  private void dropEnded() {
    watched.removeIf(w -> !w.registration.isActive());
  }

  private void advance(long nanos) {
    clock.advance(nanos);
    resources.forEach(r -> r.oracle.twin().tick(nanos));
  }

  @Override
  public void close() {
    watchdog.close();
    backend.close();
  }

  /**
   * A handle as the watchdog sees it: its renewAsync is the adapter's own, whose renewal the
   * gateway holds for the burst's batch; anything else is the handle's.
   */
  private final class Mirrored extends ReadThroughHandle {
    private final Watched w;

    Mirrored(Watched w) {
      this.w = w;
    }

    @Override
    LeaseHandle real() {
      return w.resource.handles.get(w.handle);
    }

    @Override
    public CompletionStage<RenewOutcome> renewAsync(Duration ttl) {
      w.touched = true;
      LeaseState stateBefore = real().state();
      int held = gateway.queuedRenewals();
      CompletableFuture<RenewOutcome> reply = realRenewAsync(ttl);
      boolean queued = gateway.queuedRenewals() > held;
      burst.add(new BatchedRenew(w.resource, w.handle, ttl.toMillis(), stateBefore, queued, reply));
      reply.whenComplete((out, failure) -> w.lastRenew = out == null ? null : Outcomes.of(out).variant());
      return reply;
    }

    @Override
    public RenewOutcome renew(Duration ttl) {
      // The watchdog renews without waiting; a blocking renew would be a call outside the batch.
      throw new UnsupportedOperationException("the watchdog renews through renewAsync");
    }

    @Override
    public ReleaseOutcome release() {
      throw new UnsupportedOperationException("the chain releases, not the watchdog");
    }

    @Override
    public void close() {
      throw new UnsupportedOperationException("the chain releases, not the watchdog");
    }
  }
}
