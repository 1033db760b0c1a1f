package dev.leasehold.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.testing.FakeRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link LeaseRunner#withLease} on the in-memory gateway with the real clock. */
@SuppressWarnings("unchecked") // assertInstanceOf on the generic LeaseResult records
class LeaseRunnerUnitTests {
  private static final String PURPOSE = "runner-test";
  private static final String DIGEST = ResourceDigests.sha256("resource-r");
  private static final Duration TTL = Duration.ofMillis(300);

  private FakeRedis redis;
  private RedisLeaseAdapter adapter;
  private LeaseKeys keys;
  private LeaseWatchdog watchdog;
  private SimpleMeterRegistry registry;
  private MeteredLeasePort metered;

  @BeforeEach
  void setUp() {
    FakeRedis.Clock clock = FakeRedis.Clock.real();
    redis = new FakeRedis(clock);
    adapter = RedisLeaseAdapter.builder(redis).monotonicNanos(clock).sleeper(clock).build();
    keys = adapter.keys(PURPOSE, DIGEST);
    watchdog = LeaseWatchdog.create();
    registry = new SimpleMeterRegistry();
    metered = new MeteredLeasePort(adapter, registry);
  }

  @AfterEach
  void tearDown() {
    watchdog.close();
    Thread.interrupted();
  }

  private LeaseRunner runner(boolean interrupt) {
    return new LeaseRunner(metered, watchdog, interrupt, metered::recordResult);
  }

  private LeaseRequest request(String operationId) {
    return new LeaseRequest(PURPOSE, DIGEST, Duration.ofMillis(200), TTL, adapter.newAttempt(operationId));
  }

  private double count(String operation, String outcome) {
    return registry.get("leasehold.outcomes").tag("operation", operation).tag("outcome", outcome).counter().count();
  }

  @Test
  void completes_withTheFencingToken_renewedBeyondTheTtl_andReleases() {
    LeaseResult<Long> result = runner(false).withLease(request("op"), ctx -> {
      Thread.sleep(TTL.multipliedBy(3).toMillis());
      assertFalse(ctx.isCancelled());
      assertEquals(LeaseState.ACTIVE, ctx.handle().state());
      return ctx.fencingToken().getAsLong();
    });
    LeaseResult.Completed<Long> done = assertInstanceOf(LeaseResult.Completed.class, result);
    assertEquals(1L, done.value());
    assertInstanceOf(ReleaseOutcome.Released.class, done.release());
    assertNull(redis.value(keys));
    assertTrue(count("renew", "Renewed") >= 3, "the watchdog renewed through the metered handle");
    assertEquals(1, count("acquire", "Acquired"));
    assertEquals(1, count("release", "Released"));
    assertEquals(0, count("acquire", "Contended"), "every variant is registered up front");
    assertEquals(1, registry.get("leasehold.results").tag("result", "Completed").counter().count());
    assertEquals(1, registry.get("leasehold.operations").tag("operation", "acquire").timer().count());
  }

  @Test
  void alwaysReleases_whenTheWorkThrows() {
    IOException boom = new IOException("boom");
    LeaseResult<Object> result = runner(false).withLease(request("op"), ctx -> {
      throw boom;
    });
    LeaseResult.Failed<Object> failed = assertInstanceOf(LeaseResult.Failed.class, result);
    assertSame(boom, failed.exception());
    assertInstanceOf(ReleaseOutcome.Released.class, failed.release());
    assertNull(redis.value(keys));
    assertEquals(0, watchdog.registrations());
  }

  @Test
  void alwaysReleases_whenTheWorkThrowsAnError_whichIsRethrown() {
    assertThrows(StackOverflowError.class, () -> runner(false).withLease(request("op"), ctx -> {
      throw new StackOverflowError("deep");
    }));
    assertNull(redis.value(keys));
    assertEquals(1, redis.calls("release"));
  }

  @Test
  void alwaysReleases_whenTheCallerIsInterrupted_andKeepsTheFlag() {
    LeaseResult<String> result = runner(false).withLease(request("op"), ctx -> {
      Thread.currentThread().interrupt();
      return "done";
    });
    assertTrue(Thread.interrupted(), "an interrupt from elsewhere is restored");
    LeaseResult.Completed<String> done = assertInstanceOf(LeaseResult.Completed.class, result);
    assertInstanceOf(ReleaseOutcome.Released.class, done.release(), "released despite the interrupt");
    assertNull(redis.value(keys));
  }

  @Test
  void leaseLostDuringWork_cancelsTheContextByFlag_andStillReleases() {
    LeaseResult<String> result = runner(false).withLease(request("op"), ctx -> {
      redis.delete(keys);
      long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (!ctx.isCancelled() && System.nanoTime() < end) {
        Thread.sleep(5);
      }
      ctx.throwIfCancelled();
      return "not reached";
    });
    LeaseResult.LeaseLostDuringWork<String> lost = assertInstanceOf(LeaseResult.LeaseLostDuringWork.class, result);
    assertEquals(LeaseState.LOST, lost.state());
    assertInstanceOf(LeaseLostException.class, lost.failure());
    assertInstanceOf(ReleaseOutcome.NotActive.class, lost.release(), "LOST is terminal: nothing sent");
    assertFalse(Thread.currentThread().isInterrupted());
  }

  @Test
  void leaseLostDuringWork_interruptsTheWork_whenAskedTo_andClearsThatInterrupt() {
    LeaseResult<String> result = runner(true).withLease(request("op"), ctx -> {
      redis.delete(keys);
      Thread.sleep(Duration.ofSeconds(10).toMillis());
      return "not reached";
    });
    LeaseResult.LeaseLostDuringWork<String> lost = assertInstanceOf(LeaseResult.LeaseLostDuringWork.class, result);
    assertInstanceOf(InterruptedException.class, lost.failure());
    assertFalse(Thread.currentThread().isInterrupted(), "the runner's own interrupt is cleared");
    assertEquals(1, registry.get("leasehold.results").tag("result", "LeaseLostDuringWork").counter().count());
  }

  @Test
  void notAcquired_whenHeld_theWorkNeverRuns() {
    adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, Duration.ofSeconds(30), adapter.newAttempt("holder")));
    LeaseResult<String> result = runner(false).withLease(request("op"), ctx -> {
      throw new AssertionError("must not run");
    });
    LeaseResult.NotAcquired<String> not = assertInstanceOf(LeaseResult.NotAcquired.class, result);
    assertInstanceOf(AcquireOutcome.Contended.class, not.outcome());
  }

  @Test
  void indeterminateAcquire_isReplayedOnce_soTheLeaseIsUsedAndReleased() {
    LeaseRequest request = new LeaseRequest(PURPOSE, DIGEST, Duration.ZERO, TTL, adapter.newAttempt("op"));
    redis.loseNextReply("acquire", true);
    LeaseResult<String> result = runner(false).withLease(request, ctx -> "ran");
    assertInstanceOf(LeaseResult.Completed.class, result);
    assertEquals(2, redis.calls("acquire"));
    assertNull(redis.value(keys));
  }

  /** Each failure that proves the replay did not run: the first try's lease may still be held, which only Indeterminate says. */
  @ParameterizedTest
  @EnumSource(value = GatewayException.Failure.class, names = {"NOT_SENT", "REFUSED", "OVERLOADED"})
  void indeterminateAcquire_whoseReplayDidNotRun_staysIndeterminate(GatewayException.Failure failure) {
    LeaseRequest request = new LeaseRequest(PURPOSE, DIGEST, Duration.ZERO, TTL, adapter.newAttempt("op"));
    redis.loseNextReply("acquire", true);
    redis.failNext("acquire", failure);
    LeaseResult<String> result = runner(false).withLease(request, ctx -> {
      throw new AssertionError("must not run");
    });
    LeaseResult.NotAcquired<String> not = assertInstanceOf(LeaseResult.NotAcquired.class, result);
    assertInstanceOf(AcquireOutcome.Indeterminate.class, not.outcome(), "the replay's outcome must not hide the held lease");
    assertEquals(2, redis.calls("acquire"));
    assertNotNull(redis.value(keys), "the lease the first try got is still held until its TTL");
  }

  @Test
  void aLeaseWhoseValidityRanOutBeforeTheWorkBegan_isNotWorkedUnder_andIsReportedLost() {
    FakeRedis.Clock clock = FakeRedis.Clock.virtual();
    FakeRedis server = new FakeRedis(clock);
    RedisLeaseAdapter port = RedisLeaseAdapter.builder(server).monotonicNanos(clock).sleeper(clock).build();
    // The grant's reply comes back, and the thread is resumed a TTL later.
    DistributedLeasePort resumedLate = new DistributedLeasePort() {
      @Override public LeaseAttempt newAttempt(String operationId) {
        return port.newAttempt(operationId);
      }

      @Override public AcquireOutcome tryAcquire(LeaseRequest request) {
        AcquireOutcome outcome = port.tryAcquire(request);
        clock.advance(TTL);
        return outcome;
      }

      @Override public InspectOutcome inspect(LeaseInspection inspection) {
        return port.inspect(inspection);
      }

      @Override public LeaseGuarantee guarantee() {
        return port.guarantee();
      }
    };
    LeaseWatchdog ownWatchdog = LeaseWatchdog.builder().monotonicNanos(clock).build();
    try {
      boolean[] ran = {false};
      LeaseResult<String> result = new LeaseRunner(resumedLate, ownWatchdog, false, r -> {})
          .withLease(new LeaseRequest(PURPOSE, DIGEST, Duration.ZERO, TTL, port.newAttempt("late")), ctx -> {
            ran[0] = true;
            return "done";
          });
      assertFalse(ran[0], "the work ran on a lease whose validity had run out");
      LeaseResult.LeaseLostDuringWork<String> lost = assertInstanceOf(LeaseResult.LeaseLostDuringWork.class, result);
      assertEquals(LeaseState.LOST, lost.state());
      assertTrue(lost.reason().contains("before the work began"), lost.reason());
    } finally {
      ownWatchdog.close();
    }
  }
}
