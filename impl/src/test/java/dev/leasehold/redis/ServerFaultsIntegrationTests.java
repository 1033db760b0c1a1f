package dev.leasehold.redis;

import static dev.leasehold.redis.RedisLeaseAdapterIntegrationTests.awaitCondition;
import static dev.leasehold.redis.RedisLeaseAdapterIntegrationTests.awaitConnected;
import static dev.leasehold.redis.RedisLeaseAdapterIntegrationTests.awaitDisconnected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisProcess;
import dev.leasehold.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Defect 5 and the server's own failures, against one redis-server this class owns and breaks:
 * killed before and during a call, paused, busy, restarted empty. The server is started again
 * (empty, same port) before each test that needs it.
 */
class ServerFaultsIntegrationTests {
  static final Duration DRIFT = Duration.ofMillis(10);
  static final AtomicInteger RESOURCES = new AtomicInteger();

  static RedisServer redis;
  static RedisProcess server;
  LettuceLeaseGateway gateway;
  RedisLeaseAdapter adapter;
  String digest;

  @BeforeAll
  static void startServer() {
    redis = RedisServer.start("server-faults");
    server = redis.ownedProcess();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @BeforeEach
  void connect() {
    if (!server.isAlive()) {
      server.restart();
    }
    digest = ResourceDigests.sha256("fault-" + RESOURCES.incrementAndGet());
  }

  void connect(Duration commandTimeout) {
    gateway = LettuceLeaseGateway.connect(server.uri(), commandTimeout);
    adapter = RedisLeaseAdapter.builder(gateway).namespace("it").driftBudget(DRIFT).build();
  }

  @AfterEach
  void close() {
    if (gateway != null) {
      gateway.close();
    }
  }

  LeaseRequest request(LeaseAttempt attempt) {
    return LeaseRequest.once("orders", digest, Duration.ofSeconds(5), attempt);
  }

  @Test
  void certainty_serverKilledBeforeACallIsUnavailable() {
    connect(Duration.ofMillis(500));
    server.kill();
    awaitDisconnected(gateway);
    AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("op-1")));
    assertInstanceOf(AcquireOutcome.Unavailable.class, outcome, outcome.toString());
  }

  @Test
  void certainty_serverPausedDuringACallIsIndeterminate_thenReplayRecoversTheLease() {
    connect(Duration.ofMillis(200));
    LeaseAttempt attempt = adapter.newAttempt("op-1");
    server.pause();
    AcquireOutcome outcome;
    try {
      outcome = adapter.tryAcquire(request(attempt));
    } finally {
      server.resume();
    }
    assertEquals(new AcquireOutcome.Indeterminate("op-1"), outcome);
    // The request sat in the socket and ran when the server resumed: a replay finds it.
    AcquireOutcome replay = adapter.tryAcquire(request(attempt));
    assertTrue(replay instanceof AcquireOutcome.ReplayedSameOperation || replay instanceof AcquireOutcome.Acquired,
        replay.toString());
  }

  @Test
  void certainty_serverKilledDuringACallIsIndeterminate() throws Exception {
    connect(Duration.ofSeconds(2));
    server.pause();
    Thread killer = new Thread(() -> {
      try {
        Thread.sleep(200); // let the request reach the paused server's socket first
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      server.kill();
    });
    killer.start();
    AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("op-1")));
    killer.join();
    assertInstanceOf(AcquireOutcome.Indeterminate.class, outcome, outcome.toString());
  }

  @Test
  void certainty_busyServerIsOverloaded_andNothingIsApplied() throws Exception {
    connect(Duration.ofSeconds(2));
    RedisClient client = RedisClient.create(server.uri());
    try (StatefulRedisConnection<String, String> admin = client.connect();
        StatefulRedisConnection<String, String> blocker = client.connect()) {
      admin.sync().configSet("busy-reply-threshold", "50");
      var spinning = blocker.async().eval("local i = 0 while true do i = i + 1 end", ScriptOutputType.INTEGER);
      awaitCondition(() -> {
        try (StatefulRedisConnection<String, String> probe = client.connect()) {
          probe.sync().ping();
          return false;
        } catch (RuntimeException e) {
          return e.getMessage() != null && e.getMessage().startsWith("BUSY");
        }
      });
      AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("op-1")));
      assertInstanceOf(AcquireOutcome.Overloaded.class, outcome, outcome.toString());
      try (StatefulRedisConnection<String, String> killer = client.connect()) {
        killer.sync().scriptKill();
      }
      spinning.await(2, TimeUnit.SECONDS);
      assertEquals(0, admin.sync().exists(adapter.keys("orders", digest).lease()), "a refused acquire applied nothing");
    } finally {
      client.shutdown();
    }
  }

  @Test
  void serverRestartedEmpty_oldHandleIsLost_newGrantHasALargerTokenWithTheClockFloor() {
    connect(Duration.ofMillis(500));
    LeaseHandle before = assertInstanceOf(AcquireOutcome.Acquired.class,
        adapter.tryAcquire(request(adapter.newAttempt("op-1")))).handle();
    server.restart();
    awaitConnected(gateway);
    assertInstanceOf(RenewOutcome.Lost.class, before.renew(Duration.ofSeconds(5)));
    LeaseHandle after = assertInstanceOf(AcquireOutcome.Acquired.class,
        adapter.tryAcquire(request(adapter.newAttempt("op-2")))).handle();
    assertTrue(after.fencingToken().orElseThrow() > before.fencingToken().orElseThrow(),
        "the clock floor keeps tokens rising across an empty restart");
  }
}
