package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Renewals sent without waiting ({@code renewAsync}) share RENEW calls on a real redis-server: a
 * burst goes out in calls of up to {@link RenewBatcher#MAX_BATCH} leases, each lease judged on its
 * own element of the reply. Counted by the server ({@code INFO commandstats}), never by time.
 */
class RenewBatchIntegrationTests {
  static final Duration TTL = Duration.ofSeconds(30);
  static final AtomicInteger WARM_UPS = new AtomicInteger();

  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension("batch-it");
  static RedisCommands<String, String> raw;
  RedisClient client;
  StatefulRedisConnection<String, String> connection;
  /** The batcher's lingering flushes, held until the test runs them, so a call's size never depends on timing. */
  final List<Runnable> lingers = new ArrayList<>();
  RedisLeaseAdapter adapter;

  @BeforeAll
  static void connectRaw() {
    raw = REDIS.commands();
  }

  @BeforeEach
  void connect() {
    client = RedisClient.create(REDIS.uri());
    client.setOptions(LettuceLeaseGateway.clientOptions(Duration.ofSeconds(2)));
    connection = client.connect();
    LettuceLeaseGateway gateway = LettuceLeaseGateway.owning(connection, null, (nanos, flush) -> lingers.add(flush));
    adapter = RedisLeaseAdapter.builder(gateway).namespace("batch").build();
    // The server has RENEW cached before any test counts calls (a NOSCRIPT would count one more).
    assertInstanceOf(RenewOutcome.Renewed.class, acquire(100_000 + WARM_UPS.incrementAndGet()).renew(TTL));
  }

  @AfterEach
  void close() {
    connection.close();
    client.shutdown();
  }

  /** Runs the flushes the batcher left to linger. */
  void lingerEnds() {
    List<Runnable> due = new ArrayList<>(lingers);
    lingers.clear();
    due.forEach(Runnable::run);
  }

  LeaseHandle acquire(int resource) {
    return assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(LeaseRequest.once("orders",
        ResourceDigests.sha256("order-" + resource), TTL, adapter.newAttempt("op-" + resource)))).handle();
  }

  static long renewCalls() {
    // Every script the adapter sends is an EVALSHA; only renewals are sent between two readings here.
    return calls("evalsha");
  }

  /** The server's count of {@code command} calls ({@code INFO commandstats}). */
  static long calls(String command) {
    String stats = raw.info("commandstats");
    String field = "cmdstat_" + command + ":calls=";
    int at = stats.indexOf(field);
    if (at < 0) {
      return 0;
    }
    int from = at + field.length();
    return Long.parseLong(stats.substring(from, stats.indexOf(',', from)));
  }

  @Test
  void aBurstOfRenewals_goesOutInCallsOfAtMostAHundredLeases() throws Exception {
    List<LeaseHandle> handles = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      handles.add(acquire(i));
    }
    long before = renewCalls();
    List<CompletableFuture<RenewOutcome>> outcomes = new ArrayList<>();
    for (LeaseHandle h : handles) {
      outcomes.add(h.renewAsync(Duration.ofSeconds(20)).toCompletableFuture());
    }
    // Two full calls went out at once: their 200 replies arrive; the last 50 wait for the linger,
    // which has not run yet, so none of them can be answered.
    for (CompletableFuture<RenewOutcome> outcome : outcomes.subList(0, 200)) {
      assertInstanceOf(RenewOutcome.Renewed.class, outcome.get(10, TimeUnit.SECONDS));
    }
    assertEquals(before + 2, renewCalls());
    assertEquals(50, outcomes.stream().filter(f -> !f.isDone()).count());
    lingerEnds();
    for (CompletableFuture<RenewOutcome> outcome : outcomes) {
      assertInstanceOf(RenewOutcome.Renewed.class, outcome.get(10, TimeUnit.SECONDS));
    }
    assertEquals(before + 3, renewCalls(), "250 renewals in 3 RENEW calls");
    for (LeaseHandle h : handles) {
      assertEquals(LeaseState.ACTIVE, h.state());
      long pttl = raw.pttl(adapter.keys("orders", ResourceDigests.sha256("order-" + handles.indexOf(h))).lease());
      assertTrue(pttl > 0 && pttl <= 20_000, "the renewal's TTL: " + pttl);
    }
  }

  @Test
  void eachLeaseOfACall_isJudgedOnItsOwnReply() throws Exception {
    LeaseHandle kept = acquire(1000);
    LeaseHandle deleted = acquire(1001);
    LeaseHandle taken = acquire(1002);
    LeaseKeys deletedKeys = adapter.keys("orders", ResourceDigests.sha256("order-1001"));
    LeaseKeys takenKeys = adapter.keys("orders", ResourceDigests.sha256("order-1002"));
    raw.del(deletedKeys.lease());
    raw.set(takenKeys.lease(), "someone-else:op");
    long before = renewCalls();
    CompletableFuture<RenewOutcome> a = kept.renewAsync(TTL).toCompletableFuture();
    CompletableFuture<RenewOutcome> b = deleted.renewAsync(TTL).toCompletableFuture();
    CompletableFuture<RenewOutcome> c = taken.renewAsync(TTL).toCompletableFuture();
    lingerEnds();
    assertInstanceOf(RenewOutcome.Renewed.class, a.get(10, TimeUnit.SECONDS));
    assertInstanceOf(RenewOutcome.Lost.class, b.get(10, TimeUnit.SECONDS));
    assertInstanceOf(RenewOutcome.Lost.class, c.get(10, TimeUnit.SECONDS));
    assertEquals(before + 1, renewCalls(), "one call for the three");
    assertEquals(LeaseState.ACTIVE, kept.state());
    assertEquals(LeaseState.LOST, deleted.state());
    assertEquals(LeaseState.LOST, taken.state());
    assertEquals("someone-else:op", raw.get(takenKeys.lease()), "another holder's key is left as it was");
  }

  @Test
  void aCallTheServerRefuses_leavesEachLeaseAsItWas() throws Exception {
    LeaseHandle first = acquire(2000);
    LeaseHandle second = acquire(2001);
    raw.configSet("min-replicas-to-write", "1"); // NOREPLICAS: refused before the script runs
    try {
      CompletableFuture<RenewOutcome> a = first.renewAsync(TTL).toCompletableFuture();
      CompletableFuture<RenewOutcome> b = second.renewAsync(TTL).toCompletableFuture();
      lingerEnds();
      assertInstanceOf(RenewOutcome.Unavailable.class, a.get(10, TimeUnit.SECONDS));
      assertInstanceOf(RenewOutcome.Unavailable.class, b.get(10, TimeUnit.SECONDS));
    } finally {
      raw.configSet("min-replicas-to-write", "0");
    }
    assertEquals(LeaseState.ACTIVE, first.state());
    assertEquals(LeaseState.ACTIVE, second.state());
    assertInstanceOf(RenewOutcome.Renewed.class, first.renew(TTL));
  }

  @Test
  void aRenewalWhileAnotherRequestOfTheHandleIsInFlight_sendsNothing() throws ExecutionException, InterruptedException {
    LeaseHandle handle = acquire(3000);
    long before = renewCalls();
    CompletableFuture<RenewOutcome> first = handle.renewAsync(TTL).toCompletableFuture();
    RenewOutcome second = handle.renewAsync(TTL).toCompletableFuture().get();
    assertInstanceOf(RenewOutcome.Unavailable.class, second);
    lingerEnds();
    assertInstanceOf(RenewOutcome.Renewed.class, first.get());
    assertEquals(before + 1, renewCalls());
  }

  /** A call that finds the script gone runs it with EVAL on the same node (never SCRIPT LOAD on every node). */
  @Test
  void afterAScriptFlush_theCallRunsTheScriptByItsText() throws Exception {
    LeaseHandle first = acquire(5000);
    LeaseHandle second = acquire(5001);
    raw.scriptFlush();
    long evals = calls("eval");
    long loads = calls("script|load");
    CompletableFuture<RenewOutcome> a = first.renewAsync(TTL).toCompletableFuture();
    CompletableFuture<RenewOutcome> b = second.renewAsync(TTL).toCompletableFuture();
    lingerEnds();
    assertInstanceOf(RenewOutcome.Renewed.class, a.get(10, TimeUnit.SECONDS));
    assertInstanceOf(RenewOutcome.Renewed.class, b.get(10, TimeUnit.SECONDS));
    assertEquals(evals + 1, calls("eval"), "one EVAL for the call that found no script");
    assertEquals(loads, calls("script|load"));
  }

  /** A release racing a batched renew of its handle waits for the renew's reply, as it waits for a lone one. */
  @Test
  void aReleaseDuringABatchedRenew_goesOutAfterItsReply() throws Exception {
    LeaseHandle handle = acquire(4000);
    CompletableFuture<RenewOutcome> renew = handle.renewAsync(TTL).toCompletableFuture();
    CompletableFuture<ReleaseOutcome> release = new CompletableFuture<>();
    Thread releaser = new Thread(() -> release.complete(handle.release()), "releaser");
    releaser.start();
    // Evidence that the release waits for the handle's permit, not that it merely has not started yet.
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (releaser.getState() != Thread.State.WAITING && System.nanoTime() - end < 0) {
      Thread.sleep(1);
    }
    assertEquals(Thread.State.WAITING, releaser.getState());
    assertEquals(LeaseState.ACTIVE, handle.state());
    lingerEnds();
    // Renewed, then released: had the release gone first, the renew would have found no key (Lost).
    assertInstanceOf(RenewOutcome.Renewed.class, renew.get(10, TimeUnit.SECONDS));
    assertInstanceOf(ReleaseOutcome.Released.class, release.get(10, TimeUnit.SECONDS));
    assertEquals(LeaseState.RELEASED, handle.state());
    assertEquals(0L, raw.exists(adapter.keys("orders", ResourceDigests.sha256("order-4000")).lease()));
  }
}
