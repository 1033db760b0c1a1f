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
import dev.leasehold.redis.GatewayException.Failure;
import dev.leasehold.testing.FakeRedis;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The handle's state machine (spec/tla/Lease.tla: Renew, Release, State, Deliver) on a virtual clock. */
class RedisLeaseHandleUnitTests {
  static final String PURPOSE = "handle-test";
  static final String DIGEST = ResourceDigests.sha256("r-1");
  static final Instant WALL = Instant.parse("2026-01-01T00:00:00Z");
  static final long MS = 1_000_000L;

  FakeRedis.Clock clock;
  FakeRedis redis;
  RedisLeaseAdapter adapter;
  LeaseKeys keys;
  LeaseAttempt attempt;

  @BeforeEach
  void setUp() {
    clock = FakeRedis.Clock.virtual();
    redis = new FakeRedis(clock);
    adapter = RedisLeaseAdapter.builder(redis).monotonicNanos(clock).sleeper(clock)
        .wallClock(Clock.fixed(WALL, ZoneOffset.UTC)).driftBudget(Duration.ofMillis(10))
        .contentionRetryAfter(Duration.ofMillis(50)).build();
    keys = adapter.keys(PURPOSE, DIGEST);
    attempt = adapter.newAttempt("op-1");
  }

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  AcquireOutcome acquire(LeaseAttempt a, long ttlMs) {
    return adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, Duration.ofMillis(ttlMs), a));
  }

  LeaseHandle hold(long ttlMs) {
    return assertInstanceOf(AcquireOutcome.Acquired.class, acquire(attempt, ttlMs)).handle();
  }

  /** Asserts the local deadline is exactly {@code nanosFromNow} from now: live 1 ns before, LOST at it. */
  void assertDeadlineIn(LeaseHandle h, long nanosFromNow) {
    clock.advance(Duration.ofNanos(nanosFromNow - 1));
    assertTrue(h.state().isLive(), "live 1 ns before the deadline: " + h);
    clock.advance(Duration.ofNanos(1));
    assertEquals(LeaseState.LOST, h.state(), "LOST exactly at the deadline");
    assertEquals(Duration.ZERO, h.remainingValidity());
  }

  @Test
  void grant_budgetIsTtlMinusDrift_fromBeforeTheSend() {
    redis.onCall(op -> { if (op.equals("acquire")) clock.advance(Duration.ofMillis(100)); });
    LeaseHandle h = hold(1_000);
    assertEquals(LeaseState.ACTIVE, h.state());
    assertEquals(Duration.ofMillis(890), h.remainingValidity());
    assertEquals(WALL.plusMillis(1_000), h.observedServerExpiry());
    assertEquals(1, h.fencingToken().getAsLong());
    assertDeadlineIn(h, 890 * MS);
    // LOST is stored: nothing brings it back
    assertEquals(new RenewOutcome.NotActive(LeaseState.LOST), h.renew(Duration.ofSeconds(1)));
    assertEquals(new ReleaseOutcome.NotActive(LeaseState.LOST), h.release());
    assertEquals(0, redis.calls("renew"));
    assertEquals(0, redis.calls("release"));
  }

  @Test
  void remainingValidity_countsDown() {
    LeaseHandle h = hold(1_000);
    clock.advance(Duration.ofMillis(990).minusNanos(1));
    assertEquals(Duration.ofNanos(1), h.remainingValidity());
  }

  @Test
  void renewApplied_isRenewed_withBudgetFromBeforeTheSend() {
    LeaseHandle h = hold(1_000);
    clock.advance(Duration.ofMillis(500));
    redis.onCall(op -> { if (op.equals("renew")) clock.advance(Duration.ofMillis(100)); });
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(1_890)), h.renew(Duration.ofMillis(2_000)));
    assertEquals(LeaseState.ACTIVE, h.state());
    assertEquals(WALL.plusMillis(2_000), h.observedServerExpiry());
    assertDeadlineIn(h, 1_890 * MS);
  }

  @Test
  void renewAbsent_isLost() {
    LeaseHandle h = hold(1_000);
    redis.delete(keys);
    assertInstanceOf(RenewOutcome.Lost.class, h.renew(Duration.ofSeconds(1)));
    assertEquals(LeaseState.LOST, h.state());
    assertEquals(new RenewOutcome.NotActive(LeaseState.LOST), h.renew(Duration.ofSeconds(1)));
    assertEquals(1, redis.calls("renew"));
  }

  @Test
  void renewOther_isLost() {
    LeaseHandle h = hold(1_000);
    redis.delete(keys);
    assertInstanceOf(AcquireOutcome.Acquired.class, acquire(adapter.newAttempt("other"), 5_000));
    RenewOutcome.Lost lost = assertInstanceOf(RenewOutcome.Lost.class, h.renew(Duration.ofSeconds(1)));
    assertTrue(lost.reason().contains("another"), lost.reason());
    assertEquals(LeaseState.LOST, h.state());
  }

  @Test
  void renewNotApplied_isUnavailableOrOverloaded_andChangesNothing() {
    LeaseHandle h = hold(1_000);
    redis.failNext("renew", Failure.NOT_SENT);
    assertInstanceOf(RenewOutcome.Unavailable.class, h.renew(Duration.ofMillis(100)));
    redis.failNext("renew", Failure.REFUSED);
    assertInstanceOf(RenewOutcome.Unavailable.class, h.renew(Duration.ofMillis(100)));
    redis.failNext("renew", Failure.OVERLOADED);
    assertEquals(new RenewOutcome.Overloaded(Duration.ofMillis(50)), h.renew(Duration.ofMillis(100)));
    assertEquals(LeaseState.ACTIVE, h.state());
    assertEquals(Duration.ofMillis(990), h.remainingValidity());
    // a definitely-unapplied short renew leaves no cap behind
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(4_990)), h.renew(Duration.ofSeconds(5)));
  }

  /**
   * renew(20.5 ms) with a 20 ms drift would send 20 ms: the server lease cut from 400 ms to 20 ms
   * and the handle LOST while the attempt still holds the key. Judged as sent, before any I/O.
   */
  @Test
  void renewWhoseWholeMillisecondsAreTheDrift_isRejectedBeforeIo_andLeavesTheLeaseAlone() {
    adapter = RedisLeaseAdapter.builder(redis).monotonicNanos(clock).sleeper(clock)
        .wallClock(Clock.fixed(WALL, ZoneOffset.UTC)).driftBudget(Duration.ofMillis(20)).build();
    attempt = adapter.newAttempt("op-1");
    LeaseHandle h = hold(500);
    clock.advance(Duration.ofMillis(100));
    for (Duration ttl : List.of(Duration.ofMillis(20).plusNanos(500_000), Duration.ofMillis(21).minusNanos(1))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> h.renew(ttl));
      assertEquals("ttl is sent in whole milliseconds (20 ms) and must be above the drift budget PT0.02S, but was " + ttl,
          e.getMessage());
    }
    assertEquals(0, redis.calls("renew"), "nothing was sent");
    assertEquals(LeaseState.ACTIVE, h.state());
    assertEquals(Duration.ofMillis(380), h.remainingValidity(), "the deadline is unchanged");
    assertEquals(WALL.plusMillis(500), h.observedServerExpiry());
    assertEquals(attempt.ownership(), redis.value(keys));
    assertEquals(new InspectOutcome.Held(true, Duration.ofMillis(400), OptionalLong.of(1)),
        adapter.inspect(new LeaseInspection(PURPOSE, DIGEST, attempt)), "the server lease is untouched");
    // Nothing in flight was left behind either: 21 ms is sent as 21 ms and gives its full 1 ms.
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(1)), h.renew(Duration.ofMillis(21)));
    assertDeadlineIn(h, MS);
  }

  @Test
  void definiteRenew_leavesNoCap() {
    LeaseHandle h = hold(1_000);
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(490)), h.renew(Duration.ofMillis(500)));
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(4_990)), h.renew(Duration.ofSeconds(5)));
  }

  @Test
  void ambiguousShorterRenew_isUnknown_deadlineCapped_andCapsLaterBudgets() {
    LeaseHandle h = hold(10_000);
    clock.advance(Duration.ofMillis(1_000));
    redis.loseNextReply("renew", false);
    assertInstanceOf(RenewOutcome.Indeterminate.class, h.renew(Duration.ofMillis(500)));
    assertEquals(LeaseState.UNKNOWN, h.state());
    assertEquals(Duration.ZERO, h.remainingValidity(), "UNKNOWN has no validity");
    // a later, longer renew succeeds but is capped by the ambiguous 500 ms
    clock.advance(Duration.ofMillis(100));
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(490)), h.renew(Duration.ofSeconds(5)));
    assertEquals(LeaseState.ACTIVE, h.state());
    assertDeadlineIn(h, 490 * MS);
  }

  @Test
  void ambiguousShorterRenew_deadlineIsStartPlusTtlMinusDrift() {
    LeaseHandle h = hold(10_000);
    clock.advance(Duration.ofMillis(1_000));
    redis.loseNextReply("renew", true);
    h.renew(Duration.ofMillis(500));
    assertDeadlineIn(h, 490 * MS);
  }

  @Test
  void ambiguousLongerRenew_keepsTheOldDeadline() {
    LeaseHandle h = hold(1_000);
    clock.advance(Duration.ofMillis(100));
    redis.loseNextReply("renew", true);
    assertInstanceOf(RenewOutcome.Indeterminate.class, h.renew(Duration.ofSeconds(20)));
    assertEquals(LeaseState.UNKNOWN, h.state());
    assertDeadlineIn(h, 890 * MS);
  }

  @Test
  void ambiguousRenew_whoseBudgetRanOutInFlight_isLost() {
    LeaseHandle h = hold(1_000);
    redis.onCall(op -> { if (op.equals("renew")) clock.advance(Duration.ofMillis(990)); });
    redis.loseNextReply("renew", true);
    assertInstanceOf(RenewOutcome.Lost.class, h.renew(Duration.ofSeconds(5)));
    assertEquals(LeaseState.LOST, h.state());
  }

  @Test
  void appliedRenew_whoseBudgetRanOutInFlight_staysLost() {
    LeaseHandle h = hold(1_000);
    redis.onCall(op -> { if (op.equals("renew")) clock.advance(Duration.ofMillis(995)); });
    assertInstanceOf(RenewOutcome.Lost.class, h.renew(Duration.ofSeconds(5)));
    assertEquals(LeaseState.LOST, h.state());
  }

  @Test
  void renewInFlight_capsAReplayBudget() {
    LeaseHandle h = hold(10_000);
    AtomicReference<Duration> seen = new AtomicReference<>();
    redis.onCall(op -> {
      if (op.equals("renew")) {
        AcquireOutcome replay = acquire(attempt, 10_000);
        assertSame(h, assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, replay).handle());
        seen.set(h.remainingValidity());
      }
    });
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(990)), h.renew(Duration.ofSeconds(1)));
    assertEquals(Duration.ofMillis(990), seen.get(), "the replay is capped by the 1 s renew in flight");
  }

  @Test
  void releaseInFlight_forbidsActiveOnAReplay() {
    LeaseHandle h = hold(10_000);
    AtomicReference<LeaseState> seen = new AtomicReference<>();
    redis.onCall(op -> {
      if (op.equals("release")) {
        acquire(attempt, 10_000);
        seen.set(h.state());
      }
    });
    assertEquals(new ReleaseOutcome.Released(), h.release());
    assertEquals(LeaseState.UNKNOWN, seen.get());
    assertEquals(LeaseState.RELEASED, h.state());
  }

  /** What another thread would see while {@code op} is in flight, captured right after the server ran it. */
  record Seen(LeaseState state, Duration remaining) {}

  AtomicReference<Seen> seenWhileApplied(LeaseHandle h, String op) {
    AtomicReference<Seen> seen = new AtomicReference<>();
    redis.onApplied(o -> { if (o.equals(op)) seen.set(new Seen(h.state(), h.remainingValidity())); });
    return seen;
  }

  /** The same, captured as the call reaches the server (also when a fault then stops it). */
  AtomicReference<Seen> seenWhileSent(LeaseHandle h, String op) {
    AtomicReference<Seen> seen = new AtomicReference<>();
    redis.onCall(o -> { if (o.equals(op)) seen.set(new Seen(h.state(), h.remainingValidity())); });
    return seen;
  }

  /** Spec Deadline(a): an applied shorter renew already holds while its reply is on the way. */
  @Test
  void renewInFlight_shorterTtl_capsTheValidityFromTheSend() {
    LeaseHandle h = hold(1_000);
    AtomicReference<Seen> seen = seenWhileApplied(h, "renew");
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(90)), h.renew(Duration.ofMillis(100)));
    assertEquals(new Seen(LeaseState.ACTIVE, Duration.ofMillis(90)), seen.get(), "not the old 990 ms");
  }

  @Test
  void renewInFlight_longerTtl_keepsTheOldDeadlineUntilTheReply() {
    LeaseHandle h = hold(100);
    AtomicReference<Seen> seen = seenWhileApplied(h, "renew");
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(990)), h.renew(Duration.ofMillis(1_000)));
    assertEquals(new Seen(LeaseState.ACTIVE, Duration.ofMillis(90)), seen.get());
  }

  @Test
  void renewInFlight_whoseCapPasses_isStoredLost_andTheReplyIsLost() {
    LeaseHandle h = hold(1_000);
    redis.onApplied(op -> { if (op.equals("renew")) clock.advance(Duration.ofMillis(10)); });
    AtomicReference<Seen> seen = seenWhileApplied(h, "renew");
    // cap = start + 20 - 10 ms: passed inside the call, though the old deadline (990 ms) has not.
    assertInstanceOf(RenewOutcome.Lost.class, h.renew(Duration.ofMillis(20)));
    assertEquals(new Seen(LeaseState.LOST, Duration.ZERO), seen.get());
    assertEquals(LeaseState.LOST, h.state());
  }

  @Test
  void renewRefused_dropsTheInFlightCap() {
    LeaseHandle h = hold(1_000);
    AtomicReference<Seen> seen = seenWhileSent(h, "renew");
    redis.failNext("renew", Failure.OVERLOADED);
    assertInstanceOf(RenewOutcome.Overloaded.class, h.renew(Duration.ofMillis(100)));
    assertEquals(new Seen(LeaseState.ACTIVE, Duration.ofMillis(90)), seen.get());
    assertEquals(Duration.ofMillis(990), h.remainingValidity(), "not applied: the old deadline again");
  }

  /** Spec Observed(a): the key may be gone as soon as the release is sent. */
  @Test
  void releaseInFlight_readsUnknown_thenReleased() {
    LeaseHandle h = hold(1_000);
    AtomicReference<Seen> seen = seenWhileApplied(h, "release");
    assertEquals(new ReleaseOutcome.Released(), h.release());
    assertEquals(new Seen(LeaseState.UNKNOWN, Duration.ZERO), seen.get());
    assertEquals(LeaseState.RELEASED, h.state());
  }

  @Test
  void releaseRefused_isActiveAgain() {
    LeaseHandle h = hold(1_000);
    AtomicReference<Seen> seen = seenWhileSent(h, "release");
    redis.failNext("release", Failure.NOT_SENT);
    assertInstanceOf(ReleaseOutcome.Unavailable.class, h.release());
    assertEquals(new Seen(LeaseState.UNKNOWN, Duration.ZERO), seen.get());
    assertEquals(LeaseState.ACTIVE, h.state());
    assertEquals(Duration.ofMillis(990), h.remainingValidity());
  }

  /** An exception the gateway does not classify, after the script ran, is treated as an unanswered renew. */
  @Test
  void renewAppliedThenAnUnclassifiedException_isUnknownWithTheCap_andRethrown() {
    LeaseHandle h = hold(30_000);
    redis.onApplied(op -> { if (op.equals("renew")) throw new IllegalStateException("unreadable reply"); });
    assertThrows(IllegalStateException.class, () -> h.renew(Duration.ofMillis(100)));
    assertEquals(LeaseState.UNKNOWN, h.state());
    assertDeadlineIn(h, 90 * MS);
  }

  @Test
  void releaseAppliedThenAnUnclassifiedException_isUnknown_andRethrown() {
    LeaseHandle h = hold(30_000);
    redis.onApplied(op -> { if (op.equals("release")) throw new IllegalStateException("unreadable reply"); });
    assertThrows(IllegalStateException.class, h::release);
    assertEquals(LeaseState.UNKNOWN, h.state());
    assertEquals(Duration.ZERO, h.remainingValidity());
    assertEquals(new RenewOutcome.NotActive(LeaseState.UNKNOWN), h.renew(Duration.ofSeconds(1)), "a release may be pending");
  }

  @Test
  void interruptBeforeRenew_isUnavailable_sendsNothing_keepsTheFlag() {
    LeaseHandle h = hold(1_000);
    Thread.currentThread().interrupt();
    assertEquals(new RenewOutcome.Unavailable("interrupted before sending"), h.renew(Duration.ofSeconds(1)));
    assertTrue(Thread.interrupted(), "flag kept");
    assertEquals(0, redis.calls("renew"));
    assertEquals(LeaseState.ACTIVE, h.state());
  }

  @Test
  void renewTtlAtOrBelowDrift_isRejectedBeforeIo() {
    LeaseHandle h = hold(1_000);
    assertThrows(IllegalArgumentException.class, () -> h.renew(Duration.ofMillis(10)));
    assertEquals(0, redis.calls("renew"));
  }

  @Test
  void releaseApplied_isReleased_terminal() {
    LeaseHandle h = hold(1_000);
    assertEquals(new ReleaseOutcome.Released(), h.release());
    assertEquals(LeaseState.RELEASED, h.state());
    assertNull(redis.value(keys));
    assertEquals(new ReleaseOutcome.NotActive(LeaseState.RELEASED), h.release());
    assertEquals(new RenewOutcome.NotActive(LeaseState.RELEASED), h.renew(Duration.ofSeconds(1)));
    assertEquals(1, redis.calls("release"));
    assertEquals(0, redis.calls("renew"));
    // the same attempt may be granted again, ACTIVE: nothing is left pending
    LeaseHandle again = assertInstanceOf(AcquireOutcome.Acquired.class, acquire(attempt, 1_000)).handle();
    assertEquals(LeaseState.ACTIVE, again.state());
  }

  @Test
  void releaseAbsent_isAlreadyAbsent() {
    LeaseHandle h = hold(1_000);
    redis.delete(keys);
    assertEquals(new ReleaseOutcome.AlreadyAbsent(), h.release());
    assertEquals(LeaseState.RELEASED, h.state());
  }

  @Test
  void releaseOther_isNotOwner_andLost() {
    LeaseHandle h = hold(1_000);
    redis.delete(keys);
    acquire(adapter.newAttempt("other"), 5_000);
    assertEquals(new ReleaseOutcome.NotOwner(), h.release());
    assertEquals(LeaseState.LOST, h.state());
  }

  @Test
  void releaseAppliedAfterBudgetRanOut_staysLost() {
    LeaseHandle h = hold(1_000);
    redis.onCall(op -> { if (op.equals("release")) clock.advance(Duration.ofMillis(995)); });
    assertEquals(new ReleaseOutcome.Released(), h.release());
    assertEquals(LeaseState.LOST, h.state());
  }

  @Test
  void releaseNotApplied_changesNothing() {
    LeaseHandle h = hold(1_000);
    redis.failNext("release", Failure.NOT_SENT);
    assertInstanceOf(ReleaseOutcome.Unavailable.class, h.release());
    redis.failNext("release", Failure.REFUSED);
    assertInstanceOf(ReleaseOutcome.Unavailable.class, h.release());
    redis.failNext("release", Failure.OVERLOADED);
    assertEquals(new ReleaseOutcome.Overloaded(Duration.ofMillis(50)), h.release());
    assertEquals(LeaseState.ACTIVE, h.state());
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(990)), h.renew(Duration.ofSeconds(1)));
    assertEquals(LeaseState.ACTIVE, h.state());
  }

  @Test
  void ambiguousRelease_isUnknown_renewNotActive_noActiveEvenViaReplay() {
    LeaseHandle h = hold(1_000);
    redis.loseNextReply("release", false);
    assertInstanceOf(ReleaseOutcome.Indeterminate.class, h.release());
    assertEquals(LeaseState.UNKNOWN, h.state());
    assertEquals(new RenewOutcome.NotActive(LeaseState.UNKNOWN), h.renew(Duration.ofSeconds(1)));
    assertEquals(0, redis.calls("renew"));
    LeaseHandle replayed = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, acquire(attempt, 1_000)).handle();
    assertSame(h, replayed);
    assertEquals(LeaseState.UNKNOWN, h.state());
    // deadline unchanged by the ambiguous release
    assertDeadlineIn(h, 990 * MS);
  }

  @Test
  void ambiguousAppliedRelease_thenRegrant_isNeverActive() {
    LeaseHandle h = hold(1_000);
    redis.loseNextReply("release", true);
    h.release();
    LeaseHandle regrant = assertInstanceOf(AcquireOutcome.Acquired.class, acquire(attempt, 1_000)).handle();
    assertNotSame(h, regrant);
    assertEquals(LeaseState.LOST, h.state(), "superseded");
    assertEquals(LeaseState.UNKNOWN, regrant.state());
  }

  @Test
  void ambiguousRelease_whoseBudgetRanOutInFlight_isIndeterminate_andLost() {
    LeaseHandle h = hold(1_000);
    redis.onCall(op -> { if (op.equals("release")) clock.advance(Duration.ofMillis(995)); });
    redis.loseNextReply("release", false);
    // The release was sent and may still delete the key: NotActive would say nothing was sent.
    assertInstanceOf(ReleaseOutcome.Indeterminate.class, h.release());
    assertEquals(LeaseState.LOST, h.state());
  }

  @Test
  void releaseFromAnotherThreadAfterRenew_doesNotBlock() {
    LeaseHandle h = hold(1_000);
    h.renew(Duration.ofSeconds(1));
    ReleaseOutcome out = assertTimeoutPreemptively(Duration.ofSeconds(5), h::release);
    assertEquals(new ReleaseOutcome.Released(), out);
  }

  @Test
  void renewFromAnotherThreadAfterRelease_doesNotBlock() {
    LeaseHandle h = hold(1_000);
    h.release();
    RenewOutcome out = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> h.renew(Duration.ofSeconds(1)));
    assertEquals(new RenewOutcome.NotActive(LeaseState.RELEASED), out);
  }

  @Test
  void renewFromAnotherThreadAfterRenew_doesNotBlock() {
    LeaseHandle h = hold(1_000);
    redis.delete(keys);
    h.renew(Duration.ofSeconds(1));
    RenewOutcome out = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> h.renew(Duration.ofSeconds(1)));
    assertEquals(new RenewOutcome.NotActive(LeaseState.LOST), out);
  }

  @Test
  void close_releasesALiveHandle_andIsANoOpOtherwise() {
    LeaseHandle h = hold(1_000);
    h.close();
    assertEquals(LeaseState.RELEASED, h.state());
    assertNull(redis.value(keys));
    h.close();
    assertEquals(1, redis.calls("release"));
  }

  @Test
  void close_releasesAnUnknownHandle() {
    LeaseHandle h = hold(1_000);
    redis.loseNextReply("renew", false);
    h.renew(Duration.ofSeconds(1));
    h.close();
    assertEquals(LeaseState.RELEASED, h.state());
  }

  @Test
  void toString_namesKeyOperationAndState_neverTheOwnerToken() {
    LeaseHandle h = hold(1_000);
    String s = h.toString();
    assertTrue(s.contains(keys.lease()), s);
    assertTrue(s.contains("op-1"), s);
    assertTrue(s.contains("ACTIVE"), s);
    assertFalse(s.contains(attempt.ownerToken()), s);
    clock.advance(Duration.ofSeconds(1));
    assertTrue(h.toString().contains("LOST"), h.toString());
  }

  /** Every exit of renew/release (early NotActive, failure, thrown) must unlock: another thread's call must not block. */
  @Test
  void everyExitOfRenewAndRelease_unlocks() {
    LeaseHandle h = hold(1_000);
    redis.failNext("renew", Failure.NOT_SENT);
    h.renew(Duration.ofSeconds(1));
    assertInstanceOf(RenewOutcome.Renewed.class, assertTimeoutPreemptively(Duration.ofSeconds(5), () -> h.renew(Duration.ofSeconds(1))));
    redis.failNext("release", Failure.NOT_SENT);
    h.release();
    assertInstanceOf(RenewOutcome.Renewed.class, assertTimeoutPreemptively(Duration.ofSeconds(5), () -> h.renew(Duration.ofSeconds(1))));
    redis.onCall(op -> { if (op.equals("renew") || op.equals("release")) throw new IllegalStateException("boom"); });
    assertThrows(IllegalStateException.class, () -> h.renew(Duration.ofSeconds(1)));
    assertThrows(IllegalStateException.class, () -> assertTimeoutPreemptively(Duration.ofSeconds(5), () -> h.release()));
    assertThrows(IllegalStateException.class, h::release);
    // The releases that threw may have run: renew sends nothing now, and must not block either.
    assertEquals(new RenewOutcome.NotActive(LeaseState.UNKNOWN),
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> h.renew(Duration.ofSeconds(1))));
    redis.delete(keys);
    FakeRedis other = redis;
    LeaseHandle g = assertInstanceOf(AcquireOutcome.Acquired.class, acquire(adapter.newAttempt("g"), 1_000)).handle();
    g.toString();
    clock.advance(Duration.ofSeconds(2));
    assertEquals(new RenewOutcome.NotActive(LeaseState.LOST), g.renew(Duration.ofSeconds(1)));
    assertEquals(new ReleaseOutcome.NotActive(LeaseState.LOST), assertTimeoutPreemptively(Duration.ofSeconds(5), g::release));
    assertEquals(new RenewOutcome.NotActive(LeaseState.LOST), assertTimeoutPreemptively(Duration.ofSeconds(5), () -> g.renew(Duration.ofSeconds(1))));
  }
}
