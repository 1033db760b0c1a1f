package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.*;

import dev.leasehold.testing.FakeRedis;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class RedisLeaseConfigUnitTests {
  final FakeRedis redis = new FakeRedis(FakeRedis.Clock.virtual());

  String rejected(UnaryOperator<RedisLeaseConfig.Builder> b) {
    return assertThrows(IllegalArgumentException.class, () -> b.apply(RedisLeaseAdapter.builder(redis)).build()).getMessage();
  }

  void accepted(UnaryOperator<RedisLeaseConfig.Builder> b) {
    assertNotNull(b.apply(RedisLeaseAdapter.builder(redis)).build());
  }

  @Test
  void defaults() {
    RedisLeaseConfig c = RedisLeaseAdapter.builder(redis).build().config();
    assertSame(redis, c.gateway());
    assertEquals("leasehold", c.namespace());
    assertEquals(1, c.keyVersion());
    assertEquals(Duration.ofMillis(10), c.driftBudget());
    assertEquals(Duration.ofMillis(50), c.contentionRetryAfter());
    assertEquals(FenceMode.CLOCK_FLOOR, c.fenceMode());
    assertEquals(Duration.ofMinutes(60), c.counterRetention());
    assertEquals(3_600_000, c.counterRetentionMillis());
    assertEquals(0, RedisLeaseAdapter.builder(redis).fenceMode(FenceMode.COUNTER).build().config().counterRetentionMillis(),
        "a plain counter is the only memory of the tokens issued: it must never expire");
    assertEquals(0, c.replicaAcks());
    assertEquals(Duration.ofMillis(100), c.replicaAckTimeout());
    assertNotNull(c.random());
    long t = System.nanoTime();
    assertTrue(Math.abs(c.monotonicNanos().getAsLong() - t) < 1_000_000_000L);
    assertEquals("counter", FenceMode.COUNTER.wire());
    assertEquals("clock", FenceMode.CLOCK_FLOOR.wire());
  }

  @Test
  void builderRequiresAGateway() {
    assertThrows(IllegalArgumentException.class, () -> RedisLeaseAdapter.builder(null));
  }

  @Test
  void validationMessages_andBoundaries() {
    assertEquals("namespace must match [a-z0-9][a-z0-9._-]{0,63}", rejected(b -> b.namespace("Bad")));
    assertEquals("namespace must not be null", rejected(b -> b.namespace(null)));
    assertEquals("keyVersion must be in 1..999 but was 0", rejected(b -> b.keyVersion(0)));
    assertEquals("keyVersion must be in 1..999 but was 1000", rejected(b -> b.keyVersion(1000)));
    accepted(b -> b.keyVersion(1));
    accepted(b -> b.keyVersion(999));
    assertTrue(rejected(b -> b.driftBudget(Duration.ofNanos(-1))).startsWith("driftBudget must be in 0..1 min"));
    assertTrue(rejected(b -> b.driftBudget(Duration.ofMinutes(1).plusNanos(1))).startsWith("driftBudget"));
    assertTrue(rejected(b -> b.driftBudget(null)).startsWith("driftBudget"));
    accepted(b -> b.driftBudget(Duration.ZERO));
    accepted(b -> b.driftBudget(Duration.ofMinutes(1)));
    assertTrue(rejected(b -> b.contentionRetryAfter(Duration.ofNanos(999_999))).startsWith("contentionRetryAfter must be in 1 ms..1 min"));
    assertTrue(rejected(b -> b.contentionRetryAfter(Duration.ofMinutes(1).plusNanos(1))).startsWith("contentionRetryAfter"));
    assertTrue(rejected(b -> b.contentionRetryAfter(null)).startsWith("contentionRetryAfter"));
    accepted(b -> b.contentionRetryAfter(Duration.ofMillis(1)));
    accepted(b -> b.contentionRetryAfter(Duration.ofMinutes(1)));
    assertEquals("fenceMode must not be null", rejected(b -> b.fenceMode(null)));
    // Judged as sent (whole ms): below 1 ms would send 0, which keeps the counter for ever.
    assertTrue(rejected(b -> b.counterRetention(Duration.ofNanos(999_999))).startsWith("counterRetention must be in 1 ms..365 days"));
    assertTrue(rejected(b -> b.counterRetention(Duration.ofDays(365).plusNanos(1))).startsWith("counterRetention"));
    assertTrue(rejected(b -> b.counterRetention(null)).startsWith("counterRetention"));
    accepted(b -> b.counterRetention(Duration.ofMillis(1)));
    accepted(b -> b.counterRetention(Duration.ofDays(365)));
    assertEquals("replicaAcks must be in 0..16 but was -1", rejected(b -> b.replicaAck(-1, Duration.ZERO)));
    assertEquals("replicaAcks must be in 0..16 but was 17", rejected(b -> b.replicaAck(17, Duration.ZERO)));
    accepted(b -> b.replicaAck(16, Duration.ofSeconds(10)));
    accepted(b -> b.replicaAck(0, Duration.ZERO));
    assertTrue(rejected(b -> b.replicaAck(1, Duration.ofNanos(-1))).startsWith("replicaAckTimeout must be in 0..10 s"));
    assertTrue(rejected(b -> b.replicaAck(1, Duration.ofSeconds(10).plusNanos(1))).startsWith("replicaAckTimeout"));
    assertTrue(rejected(b -> b.replicaAck(1, null)).startsWith("replicaAckTimeout"));
    assertEquals("monotonicNanos must not be null", rejected(b -> b.monotonicNanos(null)));
    assertEquals("wallClock must not be null", rejected(b -> b.wallClock(null)));
    assertEquals("random must not be null", rejected(b -> b.random(null)));
    assertEquals("sleeper must not be null", rejected(b -> b.sleeper(null)));
    RedisLeaseConfig c = RedisLeaseAdapter.builder(redis).build().config();
    assertEquals("gateway must not be null", assertThrows(IllegalArgumentException.class,
        () -> new RedisLeaseConfig(null, "ns", 1, c.driftBudget(), c.contentionRetryAfter(), c.fenceMode(), c.counterRetention(), 0,
            c.replicaAckTimeout(), c.monotonicNanos(), c.wallClock(), c.random(), c.sleeper())).getMessage());
  }

  @Test
  void ttlMillis_checksBeforeIo() {
    RedisLeaseConfig c = RedisLeaseAdapter.builder(redis).build().config();
    assertEquals("ttl must not be null", assertThrows(IllegalArgumentException.class, () -> c.ttlMillis("ttl", null)).getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> c.ttlMillis("x", Duration.ofDays(1).plusMillis(1)))
        .getMessage().startsWith("x must be <= "));
    assertEquals(86_400_000L, c.ttlMillis("x", Duration.ofDays(1)));
    assertEquals("x is sent in whole milliseconds (10 ms) and must be above the drift budget PT0.01S, but was PT0.01S",
        assertThrows(IllegalArgumentException.class, () -> c.ttlMillis("x", Duration.ofMillis(10))).getMessage());
    assertEquals(11, c.ttlMillis("x", Duration.ofMillis(11)));
    assertEquals(11, c.ttlMillis("x", Duration.ofMillis(11).plusNanos(999_999)));
    RedisLeaseConfig noDrift = RedisLeaseAdapter.builder(redis).driftBudget(Duration.ZERO).build().config();
    assertThrows(IllegalArgumentException.class, () -> noDrift.ttlMillis("x", Duration.ofNanos(999_999)));
    assertEquals(1, noDrift.ttlMillis("x", Duration.ofMillis(1)));
  }

  /** A TTL is sent in whole milliseconds, so that is what must be above the drift budget. */
  @Test
  void ttlMillis_judgesTheWholeMillisecondsThatAreSent() {
    RedisLeaseConfig c = RedisLeaseAdapter.builder(redis).driftBudget(Duration.ofMillis(20)).build().config();
    assertEquals("x is sent in whole milliseconds (20 ms) and must be above the drift budget PT0.02S, but was PT0.0205S",
        assertThrows(IllegalArgumentException.class, () -> c.ttlMillis("x", Duration.ofMillis(20).plusNanos(500_000)))
            .getMessage());
    assertThrows(IllegalArgumentException.class, () -> c.ttlMillis("x", Duration.ofMillis(21).minusNanos(1)));
    assertEquals(21, c.ttlMillis("x", Duration.ofMillis(21)));
    assertEquals(21, c.ttlMillis("x", Duration.ofMillis(21).plusNanos(999_999)));
    // A drift with a sub-millisecond part: 10.9 ms is above 10.5 ms, but the 10 ms sent is not.
    RedisLeaseConfig half = RedisLeaseAdapter.builder(redis).driftBudget(Duration.ofMillis(10).plusNanos(500_000))
        .build().config();
    assertTrue(assertThrows(IllegalArgumentException.class, () -> half.ttlMillis("x", Duration.ofMillis(10).plusNanos(900_000)))
        .getMessage().startsWith("x is sent in whole milliseconds (10 ms)"));
    assertEquals(11, half.ttlMillis("x", Duration.ofMillis(11)));
    assertEquals("x must be > 0 but was PT-0.001S",
        assertThrows(IllegalArgumentException.class, () -> c.ttlMillis("x", Duration.ofMillis(-1))).getMessage());
    assertEquals("x must be > 0 but was PT0S",
        assertThrows(IllegalArgumentException.class, () -> c.ttlMillis("x", Duration.ZERO)).getMessage());
  }

  /**
   * WAIT takes whole milliseconds and {@code WAIT n 0} blocks until n replicas answer, for ever if
   * one is down (and every later command on the connection queues behind it). A timeout under
   * 1 ms would be sent as exactly that, so with replicas to wait for it is rejected at build time.
   */
  @Test
  void replicaAckTimeout_isJudgedAsTheWholeMillisecondsWaitIsSent() {
    assertEquals("replicaAckTimeout is sent to WAIT in whole milliseconds (0 ms) and WAIT 0 blocks until the replicas"
        + " answer; it must be at least 1 ms when replicaAcks > 0, but was PT0.0009S",
        rejected(b -> b.replicaAck(1, Duration.ofNanos(900_000))));
    assertTrue(rejected(b -> b.replicaAck(2, Duration.ZERO)).startsWith("replicaAckTimeout is sent to WAIT in whole milliseconds (0 ms)"));
    accepted(b -> b.replicaAck(1, Duration.ofMillis(1)));
    accepted(b -> b.replicaAck(0, Duration.ZERO)); // no WAIT is sent at all
  }
}
