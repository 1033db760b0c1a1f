package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.*;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.GatedGateway.Gate;
import dev.leasehold.redis.GatedGateway.Where;
import dev.leasehold.testing.FakeRedis;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One attempt used for two resources: a handle, its ledger and its identity belong to the pair
 * (attempt, lease key), so the two handles are independent. {@link FenceMode#COUNTER} makes both
 * tokens 1, so nothing but the key can tell the two leases apart.
 */
class OneAttemptTwoResourcesUnitTests {
  static final String PURPOSE = "two-keys";
  static final String D1 = ResourceDigests.sha256("resource-1");
  static final String D2 = ResourceDigests.sha256("resource-2");

  FakeRedis.Clock clock;
  FakeRedis redis;
  GatedGateway gateway;
  RedisLeaseAdapter adapter;
  LeaseAttempt attempt;
  ExecutorService other;

  @BeforeEach
  void setUp() {
    clock = FakeRedis.Clock.virtual();
    redis = new FakeRedis(clock);
    gateway = new GatedGateway(redis);
    adapter = RedisLeaseAdapter.builder(gateway).monotonicNanos(clock).sleeper(clock)
        .driftBudget(Duration.ofMillis(10)).fenceMode(FenceMode.COUNTER).build();
    attempt = adapter.newAttempt("op-1");
    other = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    other.shutdownNow();
    assertTrue(other.awaitTermination(10, TimeUnit.SECONDS));
  }

  AcquireOutcome acquire(String digest, long ttlMs) {
    return adapter.tryAcquire(LeaseRequest.once(PURPOSE, digest, Duration.ofMillis(ttlMs), attempt));
  }

  LeaseHandle hold(String digest, long ttlMs) {
    return assertInstanceOf(AcquireOutcome.Acquired.class, acquire(digest, ttlMs)).handle();
  }

  @Test
  void grantOfTheSecondResource_leavesTheFirstActive_andEachReleaseDeletesItsKey() {
    LeaseHandle h1 = hold(D1, 1_000);
    LeaseHandle h2 = hold(D2, 1_000);
    assertEquals(OptionalLong.of(1), h1.fencingToken());
    assertEquals(OptionalLong.of(1), h2.fencingToken());
    assertEquals(LeaseState.ACTIVE, h1.state(), "another key's grant does not supersede this one");

    assertEquals(new ReleaseOutcome.Released(), h1.release());
    assertNull(redis.value(adapter.keys(PURPOSE, D1)), "resource 1 is free at once, not after its TTL");
    assertEquals(LeaseState.ACTIVE, h2.state());
    assertEquals(new ReleaseOutcome.Released(), h2.release());
    assertNull(redis.value(adapter.keys(PURPOSE, D2)));
  }

  @Test
  void replayOfOneResource_answersWithItsOwnHandle_andNeverRefreshesTheOther() {
    LeaseHandle h1 = hold(D1, 1_000);
    LeaseHandle h2 = hold(D2, 1_000);
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(190)), h2.renew(Duration.ofMillis(200)));

    AcquireOutcome replay = acquire(D1, 1_000);

    assertSame(h1, assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, replay).handle());
    assertEquals(Duration.ofMillis(190), h2.remainingValidity(), "resource 1's PTTL (1000 ms) never reaches resource 2's handle");
    assertSame(h2, assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, acquire(D2, 1_000)).handle());
  }

  @Test
  void renewOfOneResourceInFlight_doesNotCapTheOthersGrant() throws Exception {
    LeaseHandle h1 = hold(D1, 1_000);
    Gate renewSent = gateway.holdNext("renew", Where.BEFORE);
    Future<RenewOutcome> renew = other.submit(() -> h1.renew(Duration.ofMillis(100)));
    renewSent.awaitReached();

    LeaseHandle h2 = hold(D2, 1_000);
    assertEquals(Duration.ofMillis(990), h2.remainingValidity());
    renewSent.open();
    assertEquals(new RenewOutcome.Renewed(Duration.ofMillis(90)), renew.get(10, TimeUnit.SECONDS));
  }

  @Test
  void releaseOfOneResourceInFlight_doesNotMakeTheOthersGrantUnknown() throws Exception {
    LeaseHandle h1 = hold(D1, 1_000);
    Gate releaseSent = gateway.holdNext("release", Where.BEFORE);
    Future<ReleaseOutcome> release = other.submit(h1::release);
    releaseSent.awaitReached();

    LeaseHandle h2 = hold(D2, 1_000);
    assertEquals(LeaseState.ACTIVE, h2.state());
    releaseSent.open();
    assertEquals(new ReleaseOutcome.Released(), release.get(10, TimeUnit.SECONDS));
    assertEquals(LeaseState.ACTIVE, h2.state());
  }
}
