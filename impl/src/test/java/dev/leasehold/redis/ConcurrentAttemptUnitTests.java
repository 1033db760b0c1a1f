package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.*;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.GatedGateway.Gate;
import dev.leasehold.redis.GatedGateway.Where;
import dev.leasehold.testing.FakeRedis;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One attempt from two threads, each interleaving forced with a {@link GatedGateway} on a virtual
 * clock (time stands still, so every budget is exact): the application replays the attempt (or
 * acquires it again after the key vanished) while the watchdog's renew or a release of the same
 * attempt is in flight. The rule under test: a budget is capped by every renew of the attempt in
 * flight at any time during the request's flight, and a request that overlapped a release is
 * never ACTIVE.
 */
class ConcurrentAttemptUnitTests {
  static final String PURPOSE = "concurrent";
  static final String DIGEST = ResourceDigests.sha256("concurrent-1");

  FakeRedis.Clock clock;
  FakeRedis redis;
  GatedGateway gateway;
  RedisLeaseAdapter adapter;
  LeaseKeys keys;
  LeaseAttempt attempt;
  ExecutorService other;

  @BeforeEach
  void setUp() {
    clock = FakeRedis.Clock.virtual();
    redis = new FakeRedis(clock);
    gateway = new GatedGateway(redis);
    adapter = RedisLeaseAdapter.builder(gateway).monotonicNanos(clock).sleeper(clock)
        .driftBudget(Duration.ofMillis(10)).build();
    keys = adapter.keys(PURPOSE, DIGEST);
    attempt = adapter.newAttempt("op-1");
    other = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    other.shutdownNow();
    assertTrue(other.awaitTermination(10, TimeUnit.SECONDS));
  }

  AcquireOutcome acquire(long ttlMs) {
    return adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, Duration.ofMillis(ttlMs), attempt));
  }

  LeaseHandle hold(long ttlMs) {
    return assertInstanceOf(AcquireOutcome.Acquired.class, acquire(ttlMs)).handle();
  }

  /** Starts {@code ttlMs} on the other thread and waits until its call is at {@code gate}. */
  Future<AcquireOutcome> acquireOnTheOtherThread(long ttlMs, Gate gate) throws InterruptedException {
    Future<AcquireOutcome> f = other.submit(() -> acquire(ttlMs));
    gate.awaitReached();
    return f;
  }

  static <T> T result(Future<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  Duration serverPttl() {
    InspectOutcome.Held held = assertInstanceOf(InspectOutcome.Held.class,
        adapter.inspect(new LeaseInspection(PURPOSE, DIGEST, attempt)));
    return held.remaining();
  }

  // ---------------------------------------------------------------- renew beside a replay

  /**
   * The order seen on a real server: the replay runs first (PTTL 1000), the watchdog's renew to
   * 100 ms runs after it and its reply lands first, then the replay's reply arrives. The renew has
   * left the ledger by then; the replay's flight still remembers it.
   */
  @Test
  void replayRunBeforeAShorterRenew_andAnsweredAfterIt_isCappedByThatRenew() throws Exception {
    LeaseHandle h = hold(1_000);
    Gate replayAnswered = gateway.holdNext("acquire", Where.AFTER);
    Future<AcquireOutcome> replay = acquireOnTheOtherThread(1_000, replayAnswered);

    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(90)), h.renew(Duration.ofMillis(100)));
    replayAnswered.open();

    assertSame(h, assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, result(replay)).handle());
    assertEquals(Duration.ofMillis(100), serverPttl());
    assertEquals(Duration.ofMillis(90), h.remainingValidity(), "capped by the 100 ms renew, not the replay's stale 1000 ms");
  }

  /** Once both have landed the flights are over: a later renew and replay are capped by nothing old. */
  @Test
  void afterTheRace_laterBudgetsAreNotCappedByTheOldRenew() throws Exception {
    LeaseHandle h = hold(1_000);
    Gate replayAnswered = gateway.holdNext("acquire", Where.AFTER);
    Future<AcquireOutcome> replay = acquireOnTheOtherThread(1_000, replayAnswered);
    h.renew(Duration.ofMillis(100));
    replayAnswered.open();
    result(replay);

    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(4_990)), h.renew(Duration.ofSeconds(5)));
    assertSame(h, assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, acquire(10_000)).handle());
    assertEquals(Duration.ofMillis(4_990), h.remainingValidity());
  }

  /** A renew sent, not run yet, when the replay runs and is answered: the replay is capped by the renew still in flight. */
  @Test
  void renewStillInFlightWhenTheReplayIsAnswered_capsIt() throws Exception {
    LeaseHandle h = hold(1_000);
    Gate renewSent = gateway.holdNext("renew", Where.BEFORE);
    Future<RenewOutcome> renew = other.submit(() -> h.renew(Duration.ofMillis(100)));
    renewSent.awaitReached();

    assertSame(h, assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, acquire(1_000)).handle());
    assertEquals(Duration.ofMillis(90), h.remainingValidity(), "the server reported 1000 ms, the renew may set 100");
    renewSent.open();
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(90)), result(renew));
    assertEquals(Duration.ofMillis(90), h.remainingValidity());
  }

  // ---------------------------------------------------------------- release beside a replay

  /** The replay runs (status 2), then a release deletes the key and lands; the replay's reply must not open an ACTIVE handle. */
  @Test
  void replayRunBeforeARelease_andAnsweredAfterIt_isNeverActive() throws Exception {
    LeaseHandle h = hold(1_000);
    Gate replayAnswered = gateway.holdNext("acquire", Where.AFTER);
    Future<AcquireOutcome> replay = acquireOnTheOtherThread(1_000, replayAnswered);

    assertEquals(new ReleaseOutcome.Released(), h.release());
    replayAnswered.open();

    LeaseHandle r = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, result(replay)).handle();
    assertNull(redis.value(keys), "the release deleted the key");
    assertEquals(LeaseState.RELEASED, h.state());
    assertNotEquals(LeaseState.ACTIVE, r.state(), "no key on the server: " + r);
    assertEquals(Duration.ZERO, r.remainingValidity());
  }

  /**
   * The first try of an acquire, too: the key had vanished, the same attempt is granted again
   * (status 1), and the old handle's release, sent meanwhile, deletes the new grant's key.
   */
  @Test
  void grantOverlappedByAReleaseOfTheSameAttempt_isNeverActive() throws Exception {
    LeaseHandle h = hold(1_000);
    redis.delete(keys);
    Gate grantAnswered = gateway.holdNext("acquire", Where.AFTER);
    Future<AcquireOutcome> grant = acquireOnTheOtherThread(1_000, grantAnswered);

    assertEquals(new ReleaseOutcome.Released(), h.release());
    grantAnswered.open();

    LeaseHandle g = assertInstanceOf(AcquireOutcome.Acquired.class, result(grant)).handle();
    assertEquals(OptionalLong.of(2), g.fencingToken());
    assertNull(redis.value(keys), "the release deleted the new grant's key");
    assertNotEquals(LeaseState.ACTIVE, g.state(), "no key on the server: " + g);
  }

  // ---------------------------------------------------------------- renew in flight beside a new grant

  /**
   * The key vanished; the watchdog's renew(100 ms) of the old handle is sent but not run yet; the
   * application's retry gets a fresh grant (status 1) with 10 s. The late renew then runs on the
   * new key, so the new handle's budget must already be capped by it.
   */
  @Test
  void renewInFlight_capsANewGrantOfTheSameAttempt() throws Exception {
    LeaseHandle h = hold(10_000);
    redis.delete(keys);
    Gate renewSent = gateway.holdNext("renew", Where.BEFORE);
    Future<RenewOutcome> renew = other.submit(() -> h.renew(Duration.ofMillis(100)));
    renewSent.awaitReached();

    LeaseHandle g = assertInstanceOf(AcquireOutcome.Acquired.class, acquire(10_000)).handle();
    assertTrue(g.remainingValidity().compareTo(Duration.ofMillis(100 - 10)) <= 0,
        "the new grant is capped by the renew in flight: " + g.remainingValidity());
    assertEquals(LeaseState.LOST, h.state(), "superseded by the grant");

    renewSent.open();
    assertInstanceOf(RenewOutcome.Lost.class, result(renew));
    assertEquals(Duration.ofMillis(100), serverPttl(), "the late renew did shorten the new lease");
    assertEquals(Duration.ofMillis(90), g.remainingValidity());
  }

  /** A wall clock that runs a hook the first time the armed thread reads it: a pause at that point of a call. */
  static final class PausingWallClock extends Clock {
    private volatile Thread armed;
    private volatile Runnable hook;

    void arm(Thread thread, Runnable onRead) {
      hook = onRead;
      armed = thread;
    }

    @Override
    public Instant instant() {
      if (Thread.currentThread() == armed) {
        armed = null;
        hook.run();
      }
      return Instant.EPOCH;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  /**
   * The renew's thread pauses after it decided to send (the handle was live) and before the
   * renew is on the wire; meanwhile the key vanished and the application's retry was granted
   * again, superseding the handle. The renew then runs on the new key: the grant must have
   * counted it, since the handle could no longer stop it.
   */
  @Test
  void renewPausedBeforeItsSend_whileTheAttemptIsGrantedAgain_capsTheNewGrant() throws Exception {
    PausingWallClock wall = new PausingWallClock();
    adapter = RedisLeaseAdapter.builder(gateway).monotonicNanos(clock).sleeper(clock).wallClock(wall)
        .driftBudget(Duration.ofMillis(10)).build();
    LeaseHandle h = hold(10_000);
    redis.delete(keys);
    AtomicReference<AcquireOutcome> regrant = new AtomicReference<>();
    ExecutorService application = Executors.newSingleThreadExecutor();
    try {
      wall.arm(Thread.currentThread(), () -> {
        try {
          regrant.set(application.submit(() -> acquire(10_000)).get(10, TimeUnit.SECONDS));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      assertInstanceOf(RenewOutcome.Lost.class, h.renew(Duration.ofMillis(100)), "superseded while in flight");
    } finally {
      application.shutdownNow();
    }
    LeaseHandle g = assertInstanceOf(AcquireOutcome.Acquired.class, regrant.get()).handle();
    assertEquals(Duration.ofMillis(100), serverPttl(), "the renew ran on the new grant's key");
    assertTrue(g.remainingValidity().compareTo(Duration.ofMillis(90)) <= 0, "capped by the renew: " + g.remainingValidity());
  }
}
