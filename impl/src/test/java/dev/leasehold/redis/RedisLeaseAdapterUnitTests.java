package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.*;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.GatewayException.Failure;
import dev.leasehold.testing.FakeRedis;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RedisLeaseAdapterUnitTests {
  static final String PURPOSE = "adapter-test";
  static final String DIGEST = ResourceDigests.sha256("r-2");

  /** nextLong answers from a queue (then 0), so jitter is exact. */
  static final class ScriptedRandom extends SecureRandom {
    final Deque<Long> longs = new ArrayDeque<>();

    @Override
    public long nextLong() {
      Long v = longs.poll();
      return v == null ? 0 : v;
    }
  }

  FakeRedis.Clock clock;
  FakeRedis redis;
  ScriptedRandom random;
  List<Duration> sleeps;

  @BeforeEach
  void setUp() {
    clock = FakeRedis.Clock.virtual();
    redis = new FakeRedis(clock);
    random = new ScriptedRandom();
    sleeps = new ArrayList<>();
  }

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  RedisLeaseConfig.Builder builder(LeaseGateway g) {
    return RedisLeaseAdapter.builder(g).monotonicNanos(clock).random(random)
        .sleeper((k, d) -> { sleeps.add(d); clock.advance(d); });
  }

  static LeaseRequest once(LeaseAttempt a, long ttlMs) {
    return LeaseRequest.once(PURPOSE, DIGEST, Duration.ofMillis(ttlMs), a);
  }

  static LeaseRequest waiting(LeaseAttempt a, Duration wait, long ttlMs) {
    return new LeaseRequest(PURPOSE, DIGEST, wait, Duration.ofMillis(ttlMs), a);
  }

  @Test
  void nullArguments_areRejected() {
    RedisLeaseAdapter adapter = builder(redis).build();
    assertEquals("request must not be null", assertThrows(IllegalArgumentException.class, () -> adapter.tryAcquire(null)).getMessage());
    assertEquals("inspection must not be null", assertThrows(IllegalArgumentException.class, () -> adapter.inspect(null)).getMessage());
  }

  @Test
  void ttlAtDrift_isRejectedBeforeIo() {
    RedisLeaseAdapter adapter = builder(redis).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> adapter.tryAcquire(once(adapter.newAttempt("a"), 10)));
    assertEquals("leaseTtl is sent in whole milliseconds (10 ms) and must be above the drift budget PT0.01S, but was PT0.01S",
        e.getMessage());
    assertEquals(0, redis.calls("acquire"));
    assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(once(adapter.newAttempt("a"), 11)));
  }

  /**
   * 20.5 ms is above a 20 ms drift, but the TTL is sent in whole milliseconds: 20 ms would create
   * the key and issue a fencing token for a handle LOST at birth. Judged as sent, before any I/O.
   */
  @Test
  void ttlWhoseWholeMillisecondsAreTheDrift_isRejectedBeforeIo() {
    RedisLeaseAdapter adapter = builder(redis).driftBudget(Duration.ofMillis(20)).build();
    LeaseAttempt a = adapter.newAttempt("a");
    LeaseKeys keys = adapter.keys(PURPOSE, DIGEST);
    for (Duration ttl : List.of(Duration.ofMillis(20).plusNanos(500_000), Duration.ofMillis(21).minusNanos(1))) {
      for (Duration wait : List.of(Duration.ZERO, Duration.ofSeconds(1))) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> adapter.tryAcquire(new LeaseRequest(PURPOSE, DIGEST, wait, ttl, a)));
        assertEquals("leaseTtl is sent in whole milliseconds (20 ms) and must be above the drift budget PT0.02S,"
            + " but was " + ttl, e.getMessage());
      }
    }
    assertEquals(0, redis.calls("acquire"), "nothing was sent");
    assertEquals(0, redis.fence(keys), "no fencing token was issued");
    assertNull(redis.value(keys));
    assertEquals(List.of(), sleeps);
    LeaseHandle h = assertInstanceOf(AcquireOutcome.Acquired.class,
        adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, Duration.ofMillis(21), a))).handle();
    assertEquals(LeaseState.ACTIVE, h.state());
    assertEquals(Duration.ofMillis(1), h.remainingValidity());
    assertEquals(OptionalLong.of(1), h.fencingToken());
  }

  @Test
  void newAttempt_isAFreshBase64UrlToken() {
    RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(redis).build();
    LeaseAttempt a = adapter.newAttempt("op.1");
    LeaseAttempt b = adapter.newAttempt("op.1");
    assertEquals("op.1", a.operationId());
    assertTrue(a.ownerToken().matches("[A-Za-z0-9_-]{32}"));
    assertNotEquals(a.ownerToken(), b.ownerToken());
    assertThrows(IllegalArgumentException.class, () -> adapter.newAttempt("bad op"));
  }

  @Test
  void keys_layoutAndHashTag() {
    RedisLeaseAdapter adapter = builder(redis).namespace("ns.x").keyVersion(7).build();
    LeaseKeys k = adapter.keys("p", DIGEST);
    assertEquals("ns.x:lease:v7:{p:" + DIGEST + "}", k.lease());
    assertEquals("ns.x:lease:v7:{p:" + DIGEST + "}:fence", k.fence());
    assertEquals(k.lease() + ":released", k.releaseChannel());
    assertEquals("leasehold:lease:v1:{p:" + DIGEST + "}", builder(redis).build().keys("p", DIGEST).lease());
  }

  @Test
  void grant_budgetIsTheRequestTtl_lessTheDrift() {
    StubGateway g = new StubGateway(redis) {
      @Override
      public GatewayReply.Acquire acquire(LeaseKeys keys, String o, String t, long ttl, FenceMode m, long r) {
        return new GatewayReply.Granted(5);
      }
    };
    LeaseHandle h = assertInstanceOf(AcquireOutcome.Acquired.class,
        builder(g).build().tryAcquire(once(LeaseHandleFixtures.attempt(), 1_000))).handle();
    assertEquals(Duration.ofMillis(990), h.remainingValidity());
    assertEquals(OptionalLong.of(5), h.fencingToken());
    assertEquals(LeaseGuarantee.FENCED, h.guarantee());
  }

  @Test
  void grantWithTokenZero_hasNoToken_andIsEfficiencyOnly() {
    StubGateway g = new StubGateway(redis) {
      @Override
      public GatewayReply.Acquire acquire(LeaseKeys keys, String o, String t, long ttl, FenceMode m, long r) {
        return new GatewayReply.Granted(0);
      }
    };
    LeaseHandle h = assertInstanceOf(AcquireOutcome.Acquired.class,
        builder(g).build().tryAcquire(once(LeaseHandleFixtures.attempt(), 1_000))).handle();
    assertEquals(OptionalLong.empty(), h.fencingToken());
    assertEquals(LeaseGuarantee.EFFICIENCY_ONLY, h.guarantee());
  }

  StubGateway replaying(long pttl) {
    return new StubGateway(redis) {
      @Override
      public GatewayReply.Acquire acquire(LeaseKeys keys, String o, String t, long ttl, FenceMode m, long r) {
        return new GatewayReply.Replayed(3, pttl);
      }
    };
  }

  @Test
  void replayBudget_isReportedPttlCappedByTtl() {
    assertEquals(Duration.ofMillis(290), replayed(replaying(300), 1_000).remainingValidity());
    assertEquals(Duration.ofMillis(990), replayed(replaying(5_000), 1_000).remainingValidity());
    assertEquals(Duration.ofMillis(990), replayed(replaying(-1), 1_000).remainingValidity(), "PERSISTed: the request TTL");
    LeaseHandle zero = replayed(replaying(0), 1_000);
    assertEquals(LeaseState.LOST, zero.state());
    assertEquals(OptionalLong.of(3), zero.fencingToken());
  }

  LeaseHandle replayed(LeaseGateway g, long ttlMs) {
    return assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
        builder(g).build().tryAcquire(once(LeaseHandleFixtures.attempt(), ttlMs))).handle();
  }

  @Test
  void replayIntoALiveHandle_returnsTheSameHandle() {
    RedisLeaseAdapter adapter = builder(redis).build();
    LeaseAttempt a = adapter.newAttempt("a");
    LeaseHandle h = assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(once(a, 1_000))).handle();
    clock.advance(Duration.ofMillis(300));
    LeaseHandle r = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, adapter.tryAcquire(once(a, 5_000))).handle();
    assertSame(h, r);
    assertEquals(Duration.ofMillis(690), h.remainingValidity(), "the replay never extends");
    assertEquals(1, redis.fence(adapter.keys(PURPOSE, DIGEST)));
  }

  @Test
  void replayAfterTheHandleWasLost_opensANewHandle() {
    RedisLeaseAdapter adapter = builder(redis).build();
    LeaseAttempt a = adapter.newAttempt("a");
    LeaseKeys keys = adapter.keys(PURPOSE, DIGEST);
    LeaseHandle h = assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(once(a, 1_000))).handle();
    clock.advance(Duration.ofMillis(995));
    assertEquals(LeaseState.LOST, h.state());
    redis.renew(keys, a.ownership(), 5_000, 0); // a late renew kept the server lease
    LeaseHandle r = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, adapter.tryAcquire(once(a, 5_000))).handle();
    assertNotSame(h, r);
    assertEquals(LeaseState.ACTIVE, r.state());
    assertEquals(Duration.ofMillis(4_990), r.remainingValidity());
    assertEquals(LeaseState.LOST, h.state());
  }

  @Test
  void grantWhileAnOlderHandleIsLive_supersedesIt() {
    RedisLeaseAdapter adapter = builder(redis).build();
    LeaseAttempt a = adapter.newAttempt("a");
    LeaseHandle h = assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(once(a, 1_000))).handle();
    redis.delete(adapter.keys(PURPOSE, DIGEST));
    LeaseHandle h2 = assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(once(a, 1_000))).handle();
    assertNotSame(h, h2);
    assertEquals(LeaseState.LOST, h.state());
    assertEquals(LeaseState.ACTIVE, h2.state());
    assertEquals(OptionalLong.of(2), h2.fencingToken());
    // and a replay now finds the newest handle
    assertSame(h2, assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, adapter.tryAcquire(once(a, 1_000))).handle());
  }

  @Test
  void contended_retryAfterIsPttl_withFallback() {
    StubGateway g = new StubGateway(redis) {
      long next = 1;
      @Override
      public GatewayReply.Acquire acquire(LeaseKeys keys, String o, String t, long ttl, FenceMode m, long r) {
        return new GatewayReply.HeldByOther(next--, false);
      }
    };
    RedisLeaseAdapter adapter = builder(g).contentionRetryAfter(Duration.ofMillis(70)).build();
    assertEquals(new AcquireOutcome.Contended(Duration.ofMillis(1)), adapter.tryAcquire(once(adapter.newAttempt("a"), 1_000)));
    assertEquals(new AcquireOutcome.Contended(Duration.ofMillis(70)), adapter.tryAcquire(once(adapter.newAttempt("a"), 1_000)));
    assertEquals(new AcquireOutcome.Contended(Duration.ofMillis(70)), adapter.tryAcquire(once(adapter.newAttempt("a"), 1_000)));
  }

  @Test
  void contendedByRealHolder_andOwnerConflict() {
    RedisLeaseAdapter adapter = builder(redis).build();
    LeaseAttempt a = adapter.newAttempt("a");
    adapter.tryAcquire(once(a, 1_000));
    clock.advance(Duration.ofMillis(400));
    assertEquals(new AcquireOutcome.Contended(Duration.ofMillis(600)), adapter.tryAcquire(once(adapter.newAttempt("b"), 1_000)));
    assertEquals(new AcquireOutcome.OwnerOperationConflict(),
        adapter.tryAcquire(once(new LeaseAttempt(a.ownerToken(), "other-op"), 1_000)));
  }

  @Test
  void acquireFailures_areClassified() {
    RedisLeaseAdapter adapter = builder(redis).contentionRetryAfter(Duration.ofMillis(70)).build();
    redis.failNext("acquire", Failure.NOT_SENT);
    assertInstanceOf(AcquireOutcome.Unavailable.class, adapter.tryAcquire(once(adapter.newAttempt("a"), 1_000)));
    redis.failNext("acquire", Failure.REFUSED);
    assertInstanceOf(AcquireOutcome.Unavailable.class, adapter.tryAcquire(once(adapter.newAttempt("a"), 1_000)));
    redis.failNext("acquire", Failure.OVERLOADED);
    assertEquals(new AcquireOutcome.Overloaded(Duration.ofMillis(70)), adapter.tryAcquire(once(adapter.newAttempt("a"), 1_000)));
    redis.loseNextReply("acquire", false);
    assertEquals(new AcquireOutcome.Indeterminate("op-9"), adapter.tryAcquire(once(adapter.newAttempt("op-9"), 1_000)));
  }

  @Test
  void replicaAck_guaranteeFollowsWaitAnswer() {
    StubGateway g = new StubGateway(redis);
    g.replicasAcked = 0;
    assertEquals(LeaseGuarantee.EFFICIENCY_ONLY, granted(builder(g).replicaAck(1, Duration.ofMillis(5)).build()).guarantee());
    g.replicasAcked = 1;
    redis.delete(RedisLeaseAdapter.builder(g).build().keys(PURPOSE, DIGEST));
    assertEquals(LeaseGuarantee.FENCED, granted(builder(g).replicaAck(1, Duration.ofMillis(5)).build()).guarantee());
    redis.delete(RedisLeaseAdapter.builder(g).build().keys(PURPOSE, DIGEST));
    assertEquals(LeaseGuarantee.EFFICIENCY_ONLY, granted(builder(g).replicaAck(2, Duration.ofMillis(5)).build()).guarantee());
    g.replicasAcked = 2;
    redis.delete(RedisLeaseAdapter.builder(g).build().keys(PURPOSE, DIGEST));
    assertEquals(LeaseGuarantee.FENCED, granted(builder(g).replicaAck(2, Duration.ofMillis(5)).build()).guarantee());
    int waits = g.waits;
    redis.delete(RedisLeaseAdapter.builder(g).build().keys(PURPOSE, DIGEST));
    assertEquals(LeaseGuarantee.FENCED, granted(builder(g).build()).guarantee());
    assertEquals(waits, g.waits, "no WAIT without replicaAck");
  }

  /**
   * A replay that reports another token than the live handle's found a grant whose WAIT nobody
   * saw: it does not inherit FENCED, it sends its own WAIT (spec Acked covers a replay's reply).
   */
  @Test
  void replicaAck_replayWithAnotherToken_waitsItself() {
    StubGateway g = new StubGateway(redis);
    g.replicasAcked = 1;
    RedisLeaseAdapter adapter = builder(g).replicaAck(1, Duration.ofMillis(5)).build();
    LeaseAttempt attempt = adapter.newAttempt("op-ack");
    LeaseHandle first = assertInstanceOf(AcquireOutcome.Acquired.class,
        adapter.tryAcquire(once(attempt, 10_000))).handle();
    assertEquals(LeaseGuarantee.FENCED, first.guarantee());
    // The key vanishes behind the live handle; a try of the same attempt is granted again
    // (token 2) but its reply is lost, so no WAIT ran for that token.
    redis.delete(adapter.keys(PURPOSE, DIGEST));
    redis.loseNextReply("acquire", true);
    assertInstanceOf(AcquireOutcome.Indeterminate.class, adapter.tryAcquire(once(attempt, 10_000)));
    int waits = g.waits;
    LeaseHandle replayed = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
        adapter.tryAcquire(once(attempt, 10_000))).handle();
    assertNotEquals(first.fencingToken(), replayed.fencingToken());
    assertEquals(waits + 1, g.waits, "a replay of an unseen grant sends its own WAIT");
    assertEquals(LeaseGuarantee.FENCED, replayed.guarantee());
    // Not acknowledged: the replayed token may not survive a failover.
    g.replicasAcked = 0;
    redis.delete(adapter.keys(PURPOSE, DIGEST));
    redis.loseNextReply("acquire", true);
    assertInstanceOf(AcquireOutcome.Indeterminate.class, adapter.tryAcquire(once(attempt, 10_000)));
    LeaseHandle unacked = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
        adapter.tryAcquire(once(attempt, 10_000))).handle();
    assertEquals(LeaseGuarantee.EFFICIENCY_ONLY, unacked.guarantee());
  }

  @Test
  void replicaAck_waitFailure_isEfficiencyOnly() {
    StubGateway g = new StubGateway(redis) {
      @Override
      public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
        throw new GatewayException(Failure.AMBIGUOUS, "timeout");
      }
    };
    assertEquals(LeaseGuarantee.EFFICIENCY_ONLY, granted(builder(g).replicaAck(1, Duration.ofMillis(5)).build()).guarantee());
  }

  @Test
  void replicaAck_replayIntoLiveHandleKeepsItsGuarantee_replayWithoutHandleWaits() {
    StubGateway g = new StubGateway(redis);
    g.replicasAcked = 1;
    RedisLeaseAdapter adapter = builder(g).replicaAck(1, Duration.ofMillis(5)).build();
    LeaseAttempt a = adapter.newAttempt("a");
    LeaseHandle h = assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(once(a, 1_000))).handle();
    assertEquals(LeaseGuarantee.FENCED, h.guarantee());
    assertEquals(LeaseGuarantee.FENCED, adapter.tryAcquire(once(a, 1_000)) instanceof AcquireOutcome.ReplayedSameOperation r
        ? r.handle().guarantee() : null);
    // a fresh attempt whose grant reply was lost: the replay's own WAIT, unanswered, cannot vouch
    redis.delete(adapter.keys(PURPOSE, DIGEST));
    LeaseAttempt b = adapter.newAttempt("b");
    redis.loseNextReply("acquire", true);
    assertInstanceOf(AcquireOutcome.Indeterminate.class, adapter.tryAcquire(once(b, 1_000)));
    g.replicasAcked = 0;
    LeaseHandle rb = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, adapter.tryAcquire(once(b, 1_000))).handle();
    assertEquals(LeaseGuarantee.EFFICIENCY_ONLY, rb.guarantee());
    // without replicaAck such a replay is FENCED
    RedisLeaseAdapter plain = builder(redis).build();
    redis.delete(plain.keys(PURPOSE, DIGEST));
    LeaseAttempt c = plain.newAttempt("c");
    redis.loseNextReply("acquire", true);
    plain.tryAcquire(once(c, 1_000));
    LeaseHandle rc = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, plain.tryAcquire(once(c, 1_000))).handle();
    assertEquals(LeaseGuarantee.FENCED, rc.guarantee());
    assertEquals(LeaseGuarantee.FENCED, plain.guarantee());
  }

  LeaseHandle granted(RedisLeaseAdapter adapter) {
    return assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(once(adapter.newAttempt("g"), 1_000))).handle();
  }

  @Test
  void inspect_mapsEveryReply() {
    RedisLeaseAdapter adapter = builder(redis).build();
    LeaseAttempt a = adapter.newAttempt("a");
    LeaseInspection mine = new LeaseInspection(PURPOSE, DIGEST, a);
    assertEquals(new InspectOutcome.Absent(), adapter.inspect(mine));
    adapter.tryAcquire(once(a, 1_000));
    clock.advance(Duration.ofMillis(250));
    assertEquals(new InspectOutcome.Held(true, Duration.ofMillis(750), OptionalLong.of(1)), adapter.inspect(mine));
    assertEquals(new InspectOutcome.Held(false, Duration.ofMillis(750), OptionalLong.of(1)),
        adapter.inspect(new LeaseInspection(PURPOSE, DIGEST, adapter.newAttempt("b"))));
    redis.failNext("inspect", Failure.NOT_SENT);
    assertInstanceOf(InspectOutcome.Unavailable.class, adapter.inspect(mine));
    redis.loseNextReply("inspect", false);
    assertInstanceOf(InspectOutcome.Indeterminate.class, adapter.inspect(mine));
  }

  @Test
  void inspect_tokenZeroIsEmpty_negativePttlIsZero() {
    StubGateway g = new StubGateway(redis) {
      @Override
      public GatewayReply.Inspect inspect(LeaseKeys keys, String o) {
        return new GatewayReply.Occupied(false, -1, 0);
      }
    };
    assertEquals(new InspectOutcome.Held(false, Duration.ZERO, OptionalLong.empty()),
        builder(g).build().inspect(new LeaseInspection(PURPOSE, DIGEST, LeaseHandleFixtures.attempt())));
  }

  StubGateway alwaysHeld(long pttl) {
    return new StubGateway(redis) {
      @Override
      public GatewayReply.Acquire acquire(LeaseKeys keys, String o, String t, long ttl, FenceMode m, long r) {
        return new GatewayReply.HeldByOther(pttl, false);
      }
    };
  }

  @Test
  void jitter_isWithinTheUpperHalfOfThePause() {
    random.longs.addAll(List.of(0L, -1L, 5L, 150_000_000L));
    RedisLeaseAdapter adapter = builder(alwaysHeld(300)).build();
    adapter.tryAcquire(waiting(adapter.newAttempt("a"), Duration.ofMillis(1_000), 1_000));
    assertEquals(Duration.ofMillis(150), sleeps.get(0));
    assertEquals(Duration.ofMillis(300), sleeps.get(1));
    assertEquals(Duration.ofMillis(150).plusNanos(5), sleeps.get(2));
    assertEquals(Duration.ofMillis(300), sleeps.get(3));
    assertEquals(Duration.ofNanos(1_000_000_000L - 900_000_005L), sleeps.get(4), "cut at the deadline");
    assertEquals(5, sleeps.size());
  }

  @Test
  void unavailableTry_isRetriedAfterContentionRetryAfter() {
    redis.failNext("acquire", Failure.NOT_SENT);
    random.longs.add(-1L);
    RedisLeaseAdapter adapter = builder(redis).contentionRetryAfter(Duration.ofMillis(40)).build();
    assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(waiting(adapter.newAttempt("a"), Duration.ofSeconds(1), 1_000)));
    assertEquals(List.of(Duration.ofMillis(40)), sleeps);
  }

  @Test
  void tryEndingExactlyAtTheDeadline_doesNotSleep() {
    RedisLeaseAdapter adapter = builder(alwaysHeld(300)).build();
    redis.onCall(op -> { });
    StubGateway slow = new StubGateway(redis) {
      @Override
      public GatewayReply.Acquire acquire(LeaseKeys keys, String o, String t, long ttl, FenceMode m, long r) {
        clock.advance(Duration.ofMillis(100));
        return new GatewayReply.HeldByOther(300, false);
      }
    };
    adapter = builder(slow).build();
    assertEquals(new AcquireOutcome.Contended(Duration.ofMillis(300)),
        adapter.tryAcquire(waiting(adapter.newAttempt("a"), Duration.ofMillis(100), 1_000)));
    assertEquals(List.of(), sleeps);
  }

  @Test
  void interruptedDuringADefiniteTry_stopsWithoutSleeping() {
    StubGateway g = new StubGateway(redis) {
      @Override
      public GatewayReply.Acquire acquire(LeaseKeys keys, String o, String t, long ttl, FenceMode m, long r) {
        Thread.currentThread().interrupt();
        return new GatewayReply.HeldByOther(300, false);
      }
    };
    RedisLeaseAdapter adapter = builder(g).build();
    assertEquals(new AcquireOutcome.Contended(Duration.ofMillis(300)),
        adapter.tryAcquire(waiting(adapter.newAttempt("a"), Duration.ofSeconds(5), 1_000)));
    assertTrue(Thread.currentThread().isInterrupted());
    assertEquals(List.of(), sleeps);
  }

  @Test
  void sleeperThrowingInterrupted_stopsAndRestoresTheFlag() {
    int[] calls = new int[1];
    StubGateway g = new StubGateway(redis) {
      @Override
      public GatewayReply.Acquire acquire(LeaseKeys keys, String o, String t, long ttl, FenceMode m, long r) {
        calls[0]++;
        return new GatewayReply.HeldByOther(300, false);
      }
    };
    RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(g).monotonicNanos(clock)
        .sleeper((k, d) -> { throw new InterruptedException(); }).build();
    assertEquals(new AcquireOutcome.Contended(Duration.ofMillis(300)),
        adapter.tryAcquire(waiting(adapter.newAttempt("a"), Duration.ofSeconds(5), 1_000)));
    assertTrue(Thread.currentThread().isInterrupted(), "flag restored");
    assertEquals(1, calls[0]);
  }

  @Test
  void defaultSleeper_sleepsTheDuration() throws InterruptedException {
    RedisLeaseConfig config = RedisLeaseAdapter.builder(redis).build().config();
    long t0 = System.nanoTime();
    config.sleeper().sleep(null, Duration.ofMillis(30).plusNanos(500_000));
    assertTrue(System.nanoTime() - t0 >= 30_000_000L);
  }
}
