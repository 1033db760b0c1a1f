package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testing.FakeRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An attempt rebuilt from its token and operation id for every call (as a caller that keeps only
 * the two strings does) is one attempt: its calls share one ledger, so a replay refreshes the
 * handle of the grant instead of opening a second live one, however many copies were collected
 * in between.
 */
class EqualAttemptCopiesUnitTests {
  static final String PURPOSE = "copies";
  static final String DIGEST = ResourceDigests.sha256("resource-1");

  @Test
  void aReplayWithAFreshCopy_refreshesTheHandleOfTheGrant_afterTheFirstCopyWasCollected() {
    FakeRedis.Clock clock = FakeRedis.Clock.virtual();
    RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(new GatedGateway(new FakeRedis(clock))).monotonicNanos(clock)
        .sleeper(clock).driftBudget(Duration.ofMillis(10)).build();
    LeaseAttempt other = adapter.newAttempt("other");
    LeaseHandle othersHandle = assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(request(other))).handle();
    String token = adapter.newAttempt("op").ownerToken();

    // The first copy's try is contended: it opens the pair's ledger, and nothing else holds that copy.
    assertInstanceOf(AcquireOutcome.Contended.class, adapter.tryAcquire(request(new LeaseAttempt(token, "op"))));
    othersHandle.release();
    LeaseHandle granted = assertInstanceOf(AcquireOutcome.Acquired.class,
        adapter.tryAcquire(request(new LeaseAttempt(token, "op")))).handle();
    for (int i = 0; i < 20; i++) {
      System.gc();
      for (int n = 0; n < Ledgers.STRIPES * 4; n++) {
        adapter.tryAcquire(request(adapter.newAttempt("filler-" + n))); // other pairs: expunges collected keys
      }
    }

    AcquireOutcome.ReplayedSameOperation replayed = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
        adapter.tryAcquire(request(new LeaseAttempt(token, "op"))));
    assertSame(granted, replayed.handle(), "the grant's handle, refreshed: one live handle for the pair");
    assertEquals(LeaseState.ACTIVE, granted.state());
  }

  static LeaseRequest request(LeaseAttempt attempt) {
    return LeaseRequest.once(PURPOSE, DIGEST, Duration.ofSeconds(30), attempt);
  }
}
