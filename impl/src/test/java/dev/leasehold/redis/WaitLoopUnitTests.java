package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testing.FakeRedis;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The wait loop of {@code tryAcquire} (defect 2) on the in-memory gateway and virtual time. */
class WaitLoopUnitTests {
  private static final String PURPOSE = "wait-test";
  private static final String DIGEST = ResourceDigests.sha256("resource-1");

  private FakeRedis.Clock clock;
  private FakeRedis redis;
  private RedisLeaseAdapter adapter;
  private LeaseKeys keys;

  @BeforeEach
  void setUp() {
    clock = FakeRedis.Clock.virtual();
    redis = new FakeRedis(clock);
    adapter = RedisLeaseAdapter.builder(redis).monotonicNanos(clock).sleeper(clock)
        .contentionRetryAfter(Duration.ofMillis(50)).build();
    keys = adapter.keys(PURPOSE, DIGEST);
  }

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  private LeaseRequest request(LeaseAttempt attempt, Duration wait, Duration ttl) {
    return new LeaseRequest(PURPOSE, DIGEST, wait, ttl, attempt);
  }

  private LeaseHandle holdFor(Duration ttl) {
    AcquireOutcome held = adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, ttl, adapter.newAttempt("holder")));
    return assertInstanceOf(AcquireOutcome.Acquired.class, held).handle();
  }

  @Test
  void zeroWait_sendsExactlyOneRequest_andNeverSleeps() {
    // Given
    holdFor(Duration.ofSeconds(60));
    int before = redis.calls("acquire");
    // When
    AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("waiter"), Duration.ZERO, Duration.ofSeconds(5)));
    // Then
    assertInstanceOf(AcquireOutcome.Contended.class, outcome);
    assertEquals(1, redis.calls("acquire") - before, "Duration.ZERO tries once");
    assertTrue(clock.sleeps().isEmpty(), "Duration.ZERO never sleeps");
  }

  @Test
  void waitTimesOutExactlyAtTheDeadline_neverSleepingPastIt() {
    // Given a holder that keeps renewing (on the server) while the waiter sleeps, so the waiter
    // sees short retryAfters many times
    LeaseAttempt holder = adapter.newAttempt("holder");
    adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, Duration.ofMillis(300), holder));
    clock.onSleep(() -> redis.renew(keys, holder.ownership(), 400, 0));
    long start = clock.getAsLong();
    // When
    AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("waiter"), Duration.ofMillis(1_000), Duration.ofSeconds(5)));
    // Then
    assertInstanceOf(AcquireOutcome.Contended.class, outcome);
    assertEquals(Duration.ofMillis(1_000), Duration.ofNanos(clock.getAsLong() - start), "returned exactly at the deadline");
    List<Duration> sleeps = clock.sleeps();
    assertTrue(sleeps.size() >= 4, "slept by retryAfter with jitter, several times: " + sleeps);
    assertEquals(Duration.ofMillis(1_000), sleeps.stream().reduce(Duration.ZERO, Duration::plus), "the sleeps add up to the wait");
    assertTrue(sleeps.stream().allMatch(s -> s.compareTo(Duration.ofMillis(400)) < 0), "never longer than retryAfter: " + sleeps);
    assertTrue(sleeps.get(0).compareTo(Duration.ofMillis(150)) >= 0 && sleeps.get(0).compareTo(Duration.ofMillis(300)) <= 0,
        "the first sleep is the 300 ms retryAfter with jitter in its upper half: " + sleeps.get(0));
    // The holder's grant, the waiter's first try, one try after every sleep but the last: none at the deadline.
    assertEquals(1 + sleeps.size(), redis.calls("acquire"), "no try at or after the deadline");
  }

  @Test
  void longRetryAfter_isCutAtTheDeadline() {
    holdFor(Duration.ofSeconds(60));
    long start = clock.getAsLong();
    AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("waiter"), Duration.ofMillis(700), Duration.ofSeconds(5)));
    assertInstanceOf(AcquireOutcome.Contended.class, outcome);
    assertEquals(List.of(Duration.ofMillis(700)), clock.sleeps());
    assertEquals(700_000_000L, clock.getAsLong() - start);
  }

  @Test
  void holderExpiresWhileWaiting_waiterAcquiresBeforeTheDeadline() {
    holdFor(Duration.ofMillis(300));
    long start = clock.getAsLong();
    AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("waiter"), Duration.ofSeconds(2), Duration.ofSeconds(5)));
    LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, outcome).handle();
    long waited = clock.getAsLong() - start;
    assertTrue(waited >= 300_000_000L && waited < 600_000_000L, "acquired soon after the expiry: " + waited);
    assertEquals(LeaseState.ACTIVE, handle.state());
  }

  @Test
  void lostReplyWhileWaiting_isResolvedByReplayingTheSameAttempt() {
    // Given: the first ACQUIRE is applied but its reply is lost
    LeaseAttempt attempt = adapter.newAttempt("waiter");
    redis.loseNextReply("acquire", true);
    // When
    AcquireOutcome outcome = adapter.tryAcquire(request(attempt, Duration.ofSeconds(1), Duration.ofSeconds(5)));
    // Then: the retry was a replay of the same attempt, not a new acquisition
    LeaseHandle handle = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, outcome).handle();
    assertEquals(2, redis.calls("acquire"));
    assertEquals(1, redis.fence(keys), "only the lost grant issued a token");
    assertEquals(1, handle.fencingToken().getAsLong());
    assertEquals(attempt.ownership(), redis.value(keys));
    assertEquals(LeaseState.ACTIVE, handle.state());
    assertTrue(handle.remainingValidity().compareTo(Duration.ofSeconds(5)) < 0, "a replay gets what is left, never more");
  }

  @Test
  void lostRequestWhileWaiting_replayGrants() {
    LeaseAttempt attempt = adapter.newAttempt("waiter");
    redis.loseNextReply("acquire", false);
    AcquireOutcome outcome = adapter.tryAcquire(request(attempt, Duration.ofSeconds(1), Duration.ofSeconds(5)));
    assertInstanceOf(AcquireOutcome.Acquired.class, outcome);
    assertEquals(1, redis.fence(keys));
  }

  @Test
  void unavailableAndOverloaded_areRetriedUntilTheDeadline() {
    redis.failNext("acquire", GatewayException.Failure.NOT_SENT);
    redis.failNext("acquire", GatewayException.Failure.OVERLOADED);
    AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("waiter"), Duration.ofSeconds(1), Duration.ofSeconds(5)));
    assertInstanceOf(AcquireOutcome.Acquired.class, outcome);
    assertEquals(3, redis.calls("acquire"));
  }

  @Test
  void interruptWhileSleeping_stopsTheWait_keepsTheFlag_andReportsTheLastDefiniteOutcome() {
    holdFor(Duration.ofSeconds(60));
    clock.onSleep(() -> Thread.currentThread().interrupt());
    int before = redis.calls("acquire");
    AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("waiter"), Duration.ofSeconds(120), Duration.ofSeconds(5)));
    assertTrue(Thread.currentThread().isInterrupted(), "the flag is restored");
    assertInstanceOf(AcquireOutcome.Contended.class, outcome, "nothing was in flight: the last reply stands");
    assertEquals(1, redis.calls("acquire") - before, "no request after the interrupt");
  }

  @Test
  void interruptDuringARequest_stopsTheWait_andIsIndeterminate() {
    // Given a request that is applied, then interrupted while waiting for its reply (as lettuce
    // reports it: ambiguous, with the flag given back)
    redis.loseNextReply("acquire", true);
    redis.onCall(op -> Thread.currentThread().interrupt());
    RedisLeaseAdapter a = RedisLeaseAdapter.builder(redis).monotonicNanos(clock).sleeper((k, d) -> clock.advance(d)).build();
    // When
    AcquireOutcome outcome = a.tryAcquire(request(a.newAttempt("waiter"), Duration.ofSeconds(10), Duration.ofSeconds(5)));
    // Then: honest about the request in flight, and nothing more sent
    assertInstanceOf(AcquireOutcome.Indeterminate.class, outcome);
    assertTrue(Thread.currentThread().isInterrupted());
    assertEquals(1, redis.calls("acquire"));
  }

  @Test
  void ownerOperationConflict_isFinal_noWaiting() {
    LeaseAttempt first = adapter.newAttempt("op-1");
    adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, Duration.ofSeconds(60), first));
    LeaseAttempt sibling = new LeaseAttempt(first.ownerToken(), "op-2");
    AcquireOutcome outcome = adapter.tryAcquire(request(sibling, Duration.ofSeconds(5), Duration.ofSeconds(5)));
    assertInstanceOf(AcquireOutcome.OwnerOperationConflict.class, outcome);
    assertTrue(clock.sleeps().isEmpty());
    assertFalse(Thread.currentThread().isInterrupted());
  }

  @Test
  void aLaterUnsentTryDoesNotMakeTheCallCertain_afterAnAmbiguousOne() {
    // Given: the first try is applied and its reply lost; every later try is never sent.
    // (Found by the model tests: the call used to report Unavailable although it had set the key.)
    redis.loseNextReply("acquire", true);
    for (int i = 0; i < 50; i++) {
      redis.failNext("acquire", GatewayException.Failure.NOT_SENT);
    }
    LeaseAttempt attempt = adapter.newAttempt("waiter");
    // When
    AcquireOutcome outcome = adapter.tryAcquire(request(attempt, Duration.ofMillis(200), Duration.ofSeconds(5)));
    // Then
    assertEquals(new AcquireOutcome.Indeterminate("waiter"), outcome);
    assertTrue(redis.calls("acquire") >= 2, "it kept trying the same attempt");
  }
}
