package dev.leasehold.model.concurrency;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.testkit.lease.LeaseInvariants;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.sim.SimulatedGateway;
import dev.leasehold.testkit.sim.SimulatedRedis;
import dev.leasehold.testkit.sim.VirtualClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Lincheck on {@code RedisLeaseHandle}: renew (the watchdog thread), release and state (the
 * application thread) run concurrently on one handle over the simulated gateway, and every
 * result must be explained by some sequential order. A read while a renew(ttl) is in flight gives
 * min(old deadline, start + ttl - drift), which is the value either before or after the renew. Time is frozen so results are deterministic;
 * after each scenario the handle must not be ACTIVE unless the server holds it for its whole budget.
 * Small parameter ranges, model checking and stress, as Caffeine does.
 *
 * <p>Excluded operations here: tryAcquire and inspect (a replay does touch the handle's belief, see
 * {@link ReplayBesideRenewAndRelease}, which checks it with coarser results) and time passing
 * (virtual time would make results depend on interleavings by design).
 */
@Param(name = "ttl", gen = IntGen.class, conf = "15:40")
// The stress runs go first, and the module gives each test class a fresh JVM (model-tests/pom.xml):
// in a JVM where other tests had run they took 77 to 94 s in CI runs, against 2.4 to 6.7 s first in a fresh one.
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public class RedisLeaseHandleLincheckUnitTests {
  private final VirtualClock clock = new VirtualClock();
  private final SimulatedRedis redis = new SimulatedRedis(clock);
  private final LeaseHandle handle;
  private final LeaseAttempt attempt;

  public RedisLeaseHandleLincheckUnitTests() {
    RedisLeaseAdapter port = RedisLeaseAdapter.builder(new SimulatedGateway(redis)).driftBudget(Duration.ofMillis(10))
        .monotonicNanos(clock.monotonic()).wallClock(clock.wall()).build();
    attempt = port.newAttempt("lincheck");
    LeaseRequest request = LeaseRequest.once("model", "sha256:" + "ab".repeat(32), Duration.ofMillis(30), attempt);
    handle = ((AcquireOutcome.Acquired) port.tryAcquire(request)).handle();
  }

  @Operation
  public String renew(@Param(name = "ttl") int ttlMs) {
    return answer(handle.renew(Duration.ofMillis(ttlMs)));
  }

  @Operation
  public String release() {
    return answer(handle.release());
  }

  /**
   * state(), with UNKNOWN and RELEASED as one answer. Here (no faults, time frozen) a handle reads
   * UNKNOWN only while its release is in flight (the spec's Observed(a): the key may be gone
   * already), and a sequential order, where release is one step, can place that read only after
   * the release. An UNKNOWN at any other point still fails: later results then contradict RELEASED.
   */
  @Operation
  public String state() {
    return answer(handle.state());
  }

  /** Separate from state(): the two calls together are not one atomic read, and need not be. */
  @Operation
  public long remainingMillis() {
    return handle.remainingValidity().toMillis();
  }

  /** ActiveHoldsKey and ValidityWithinServerLease: an ACTIVE handle's budget is within what the server holds. */
  @Validate
  public void validity() {
    withinServerLease(handle, redis, clock, attempt);
  }

  static String answer(RenewOutcome out) {
    return out instanceof RenewOutcome.Renewed r ? "Renewed(" + r.validity().toMillis() + "ms)"
        : out instanceof RenewOutcome.NotActive n ? "NotActive(" + n.state() + ")" : out.getClass().getSimpleName();
  }

  static String answer(ReleaseOutcome out) {
    return out instanceof ReleaseOutcome.NotActive n ? "NotActive(" + n.state() + ")" : out.getClass().getSimpleName();
  }

  /** A state, with UNKNOWN and RELEASED as one answer (see {@link #state()}). */
  static String answer(LeaseState s) {
    return s == LeaseState.UNKNOWN || s == LeaseState.RELEASED ? "RELEASED or releasing" : s.name();
  }

  /**
   * ActiveHoldsKey and ValidityWithinServerLease for one handle, decided by the predicates every
   * oracle shares; returns whether the handle is ACTIVE. The simulated server keeps whole
   * milliseconds and expires a key after its last one.
   */
  static boolean withinServerLease(LeaseHandle h, SimulatedRedis redis, VirtualClock clock, LeaseAttempt attempt) {
    if (h.state() != LeaseState.ACTIVE) {
      return false;
    }
    SimulatedRedis.Entry e = redis.entry(LeaseWorld.KEYS);
    boolean held = e != null && e.value().equals(attempt.ownership());
    long deadline = clock.clientNanos() + h.remainingValidity().toNanos();
    long expiry = e == null ? 0 : (e.expiryMs() + 1) * 1_000_000L;
    if (!LeaseInvariants.activeHoldsKey(true, held)
        || !LeaseInvariants.validityWithinServerLease(true, held, deadline, expiry, 0)) {
      throw new AssertionError("ACTIVE handle beyond the server lease: " + h + ", server " + e);
    }
    return true;
  }

  /**
   * A replay (tryAcquire again with the same attempt) beside the handle's renew and release, as
   * the application's wait loop or retry runs beside the watchdog. The safety checks are exact:
   * after each scenario every handle ever returned, not just the first, is within the server lease
   * if ACTIVE, and at most one is ACTIVE. The results are coarser than above, because a replay is
   * safe but not linearizable in three ways, each on the conservative side:
   * <ol>
   *   <li>its reply may carry a PTTL the server reported before a concurrent renew ran, and the
   *       budget it keeps is then min(reported, renew) - drift, below what any sequential order
   *       gives: remainingValidity is left out here;
   *   <li>a replay that overlapped a release answers with a handle that is UNKNOWN (or supersedes
   *       the releasing handle to LOST), which no sequential order produces: a replay returns only
   *       its outcome kind, and NotActive is not told apart by state;
   *   <li>state() reads UNKNOWN as soon as a release is sent, and a replay the server ran before
   *       that release then reports the lease held: no sequential order has both, so state() is
   *       left out here (the class above checks it beside renew and release).
   * </ol>
   */
  @Param(name = "renewTtl", gen = IntGen.class, conf = "15:25")
  @Param(name = "replayTtl", gen = IntGen.class, conf = "26:40")
  public static class ReplayBesideRenewAndRelease {
    private final VirtualClock clock = new VirtualClock();
    private final SimulatedRedis redis = new SimulatedRedis(clock);
    private final RedisLeaseAdapter port;
    private final LeaseAttempt attempt;
    private final LeaseHandle handle;
    private final CopyOnWriteArrayList<LeaseHandle> handles = new CopyOnWriteArrayList<>();
    private final Map<Integer, LeaseRequest> requests = new HashMap<>();

    public ReplayBesideRenewAndRelease() {
      // Renews shorter than replays, and a 1 ms drift budget, so that a replay's stale PTTL restored
      // after a renew shows as a budget beyond the server lease (a 10 ms drift would hide most).
      port = RedisLeaseAdapter.builder(new SimulatedGateway(redis)).driftBudget(Duration.ofMillis(1))
          .monotonicNanos(clock.monotonic()).wallClock(clock.wall()).random(new FixedRandom()).build();
      attempt = port.newAttempt("lincheck");
      for (int ttl = 26; ttl <= 40; ttl++) {
        request(ttl);
      }
      handle = ((AcquireOutcome.Acquired) port.tryAcquire(request(30))).handle();
      handles.add(handle);
    }

    /**
     * Fixed owner-token bytes. tryAcquire looks the attempt up in a hash map; model checking
     * replays an invocation on a new instance and requires the same memory accesses, so the
     * attempt's hash code must not be random.
     */
    private static final class FixedRandom extends SecureRandom {
      @Override
      public void nextBytes(byte[] bytes) {
        Arrays.fill(bytes, (byte) 7);
      }
    }

    /** Built here, not in the operation: the checker need not follow LeaseRequest's validation. */
    private LeaseRequest request(int ttlMs) {
      return requests.computeIfAbsent(ttlMs, ttl -> LeaseRequest.once("model", "sha256:" + "ab".repeat(32),
          Duration.ofMillis(ttl), attempt));
    }

    @Operation
    public String replay(@Param(name = "replayTtl") int ttlMs) {
      AcquireOutcome out = port.tryAcquire(request(ttlMs));
      // Handles have identity equality: a replay absorbed into a handle already listed adds nothing.
      if (out instanceof AcquireOutcome.Acquired a) {
        handles.addIfAbsent(a.handle());
      } else if (out instanceof AcquireOutcome.ReplayedSameOperation r) {
        handles.addIfAbsent(r.handle());
      }
      return out.getClass().getSimpleName();
    }

    @Operation
    public String renew(@Param(name = "renewTtl") int ttlMs) {
      RenewOutcome out = handle.renew(Duration.ofMillis(ttlMs));
      return out instanceof RenewOutcome.Renewed r ? "Renewed(" + r.validity().toMillis() + "ms)" : out.getClass().getSimpleName();
    }

    @Operation
    public String release() {
      return handle.release().getClass().getSimpleName();
    }

    /** ActiveHoldsKey and ValidityWithinServerLease for every handle, and MutualExclusion: one attempt, so at most one ACTIVE handle. */
    @Validate
    public void validity() {
      int active = 0;
      for (LeaseHandle h : handles) {
        if (withinServerLease(h, redis, clock, attempt)) {
          active++;
        }
      }
      if (!LeaseInvariants.mutualExclusion(active)) {
        throw new AssertionError(active + " ACTIVE handles of one attempt: " + handles);
      }
    }
  }

  /**
   * The watchdog's renewal (renewAsync, as a batch sends it) beside the application's release and
   * reads: the renew reaches the server when it is sent, and its reply is judged later, on the
   * thread that reads the batch's reply ({@link #deliver}), while release and the reads run
   * beside it. Every result must be explained by some sequential order in which the reply's
   * judgement is one step, and after each scenario the handle must not be ACTIVE beyond the server
   * lease. What a renewal's reply was judged to be shows in the reads that follow it; the
   * RenewOutcome handed back on the I/O thread is left out, since no operation here can read it at
   * the instant it is judged.
   *
   * <p>A release waits while a renew of its handle is in flight (one renew or release in flight
   * per handle), which no sequential order can show: renewAsync and release share a group, run by
   * one thread, and a release that would wait for a reply held here answers so instead of
   * waiting. The race that matters stays: a release right after the reply, while the I/O thread
   * is still judging it.
   */
  @Param(name = "ttl", gen = IntGen.class, conf = "15:40")
  public static class AsyncRenewBesideRelease {
    private static final String CALLER = "caller";
    private final VirtualClock clock = new VirtualClock();
    private final SimulatedRedis redis = new SimulatedRedis(clock);
    private final DeferredReplies gateway = new DeferredReplies(new SimulatedGateway(redis));
    private final LeaseHandle handle;
    private final LeaseAttempt attempt;

    public AsyncRenewBesideRelease() {
      RedisLeaseAdapter port = RedisLeaseAdapter.builder(gateway).driftBudget(Duration.ofMillis(10))
          .monotonicNanos(clock.monotonic()).wallClock(clock.wall()).build();
      attempt = port.newAttempt("lincheck");
      LeaseRequest request = LeaseRequest.once("model", "sha256:" + "ab".repeat(32), Duration.ofMillis(30), attempt);
      handle = ((AcquireOutcome.Acquired) port.tryAcquire(request)).handle();
    }

    /** The watchdog sends a renewal: its outcome if it was decided without a reply, else "sent". */
    @Operation(nonParallelGroup = CALLER)
    public String renewAsync(@Param(name = "ttl") int ttlMs) {
      // Whether it was sent, not whether it is done: the reply may already have been judged on
      // another thread. Only this group's thread sends, so the count is this call's.
      long sent = gateway.sent();
      CompletableFuture<RenewOutcome> out = handle.renewAsync(Duration.ofMillis(ttlMs)).toCompletableFuture();
      return gateway.sent() != sent ? "sent" : answer(out.join());
    }

    /** The batch's reply arrives: the renewal in flight, if any, is judged on this thread. */
    @Operation
    public boolean deliver() {
      return gateway.deliver();
    }

    @Operation(nonParallelGroup = CALLER)
    public String release() {
      if (gateway.holding()) {
        return "waits for the renewal's reply";
      }
      return answer(handle.release());
    }

    /** state(), with UNKNOWN and RELEASED as one answer, for the reason given at the outer class's state(). */
    @Operation
    public String state() {
      return answer(handle.state());
    }

    @Operation
    public long remainingMillis() {
      return handle.remainingValidity().toMillis();
    }

    @Validate
    public void validity() {
      withinServerLease(handle, redis, clock, attempt);
    }
  }

  /**
   * A gateway whose renewAsync runs the script on the server at once and holds its reply until
   * {@link #deliver}, which completes it on the caller's thread, as a gateway's I/O thread
   * completes each renewal of a batch from the batch's reply.
   */
  private static final class DeferredReplies implements LeaseGateway {
    private final SimulatedGateway delegate;
    private final ConcurrentLinkedQueue<Runnable> replies = new ConcurrentLinkedQueue<>();
    private final AtomicLong sent = new AtomicLong();

    DeferredReplies(SimulatedGateway delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletableFuture<GatewayReply.Change> renewAsync(LeaseKeys keys, String ownership, long ttlMillis,
        long counterRetentionMillis) {
      sent.incrementAndGet();
      CompletableFuture<GatewayReply.Change> reply = new CompletableFuture<>();
      GatewayReply.Change change = delegate.renew(keys, ownership, ttlMillis, counterRetentionMillis);
      replies.add(() -> reply.complete(change));
      return reply;
    }

    long sent() {
      return sent.get();
    }

    boolean holding() {
      return !replies.isEmpty();
    }

    /**
     * Completes the oldest held reply on this thread; false if none was held. One at a time, as one
     * I/O thread reads a connection's replies: a second call waits until the first reply has been
     * judged, so "none held" is never said of a reply still being judged.
     */
    synchronized boolean deliver() {
      Runnable reply = replies.poll();
      if (reply == null) {
        return false;
      }
      reply.run();
      return true;
    }

    @Override
    public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis,
        FenceMode mode, long counterRetentionMillis) {
      return delegate.acquire(keys, ownership, ownerToken, ttlMillis, mode, counterRetentionMillis);
    }

    @Override
    public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
      return delegate.renew(keys, ownership, ttlMillis, counterRetentionMillis);
    }

    @Override
    public GatewayReply.Change release(LeaseKeys keys, String ownership) {
      return delegate.release(keys, ownership);
    }

    @Override
    public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
      return delegate.inspect(keys, ownership);
    }

    @Override
    public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
      return delegate.waitForReplicas(keys, replicas, timeout);
    }

    @Override
    public void close() {}
  }

  /**
   * Model checking with the simulated server as one atomic step, which it is (one lock, as Redis
   * runs one script at a time): the checker need not interleave inside the Lua interpreter, whose
   * loops it would otherwise take for livelocks.
   */
  private static ModelCheckingOptions atomicServerModelChecking() {
    return new ModelCheckingOptions().addGuarantee(forClasses(SimulatedRedis.class.getName()).allMethods().treatAsAtomic());
  }

  /** One call per thread and nothing around them: every scenario is a single race, explored in depth. */
  @Test
  @Order(3)
  void replayModelChecking_singleRaces() {
    atomicServerModelChecking().iterations(15).invocationsPerIteration(300).threads(2).actorsPerThread(1)
        .actorsBefore(0).actorsAfter(0).check(ReplayBesideRenewAndRelease.class);
  }

  @Test
  @Order(4)
  void replayModelChecking() {
    atomicServerModelChecking().iterations(10).invocationsPerIteration(100).threads(2).actorsPerThread(2)
        .actorsBefore(1).actorsAfter(1).check(ReplayBesideRenewAndRelease.class);
  }

  @Test
  @Order(2)
  void replayStress() {
    new StressOptions().iterations(5).invocationsPerIteration(200).threads(2).actorsPerThread(3)
        .check(ReplayBesideRenewAndRelease.class);
  }

  @Test
  @Order(5)
  void modelChecking() {
    atomicServerModelChecking().iterations(10).invocationsPerIteration(100).threads(2).actorsPerThread(2)
        .actorsBefore(1).actorsAfter(1).check(RedisLeaseHandleLincheckUnitTests.class);
  }

  @Test
  @Order(1)
  void stress() {
    new StressOptions().iterations(5).invocationsPerIteration(200).threads(2).actorsPerThread(3)
        .check(RedisLeaseHandleLincheckUnitTests.class);
  }

  @Test
  @Order(6)
  void asyncRenewStress() {
    new StressOptions().iterations(5).invocationsPerIteration(200).threads(2).actorsPerThread(3)
        .check(AsyncRenewBesideRelease.class);
  }

  @Test
  @Order(7)
  void asyncRenewModelChecking() {
    atomicServerModelChecking().iterations(10).invocationsPerIteration(100).threads(2).actorsPerThread(2)
        .actorsBefore(1).actorsAfter(1).check(AsyncRenewBesideRelease.class);
  }
}
