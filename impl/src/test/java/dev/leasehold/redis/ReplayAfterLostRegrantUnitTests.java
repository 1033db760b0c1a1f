package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.*;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testing.FakeRedis;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Regression (found while killing PIT survivors): a replay into a live handle adopted the reply's
 * PTTL but ignored the reply's fencing token. If the
 * server lost the lease and the same attempt was granted again with a lost reply, the replay
 * returns the old handle with the old token, although the server's lease now carries a new one.
 */
class ReplayAfterLostRegrantUnitTests {
  @Test
  void replayAfterALostRegrant_reportsTheServersToken() {
    FakeRedis.Clock clock = FakeRedis.Clock.virtual();
    FakeRedis redis = new FakeRedis(clock);
    RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(redis).monotonicNanos(clock).sleeper(clock).build();
    String digest = ResourceDigests.sha256("bug");
    LeaseKeys keys = adapter.keys("bug", digest);
    LeaseAttempt attempt = adapter.newAttempt("op");
    LeaseRequest req = LeaseRequest.once("bug", digest, Duration.ofSeconds(10), attempt);
    LeaseHandle h1 = assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(req)).handle();
    assertEquals(OptionalLong.of(1), h1.fencingToken());
    // the server loses the lease (eviction/operator), the same attempt is granted again, reply lost
    redis.delete(keys);
    redis.loseNextReply("acquire", true);
    assertInstanceOf(AcquireOutcome.Indeterminate.class, adapter.tryAcquire(req));
    assertEquals(2, redis.fence(keys));
    LeaseHandle replayed = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, adapter.tryAcquire(req)).handle();
    InspectOutcome.Held held = assertInstanceOf(InspectOutcome.Held.class, adapter.inspect(new LeaseInspection("bug", digest, attempt)));
    assertEquals(held.fencingToken(), replayed.fencingToken(),
        "the replay's handle must carry the token the server's lease was issued with");
  }
}
