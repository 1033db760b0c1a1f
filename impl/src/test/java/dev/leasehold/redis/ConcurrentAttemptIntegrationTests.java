package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisServerExtension;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One attempt driven from two threads against a real redis-server: the watchdog's renew or the
 * application's release beside a replay of the same attempt, and one attempt used for two
 * resources. Each iteration starts both threads together on a barrier; once both calls have
 * returned (nothing in flight), every handle is checked against what the server holds, read on a
 * second connection ({@link #assertWithinServerLease}).
 *
 * <p>Bounded: {@value #ITERATIONS} iterations or {@link #TIME_LIMIT}, whichever comes first.
 */
class ConcurrentAttemptIntegrationTests {
  static final int ITERATIONS = 3_000;
  static final Duration TIME_LIMIT = Duration.ofSeconds(60);
  static final Duration DRIFT = Duration.ofMillis(10);
  static final Duration LONG_TTL = Duration.ofMillis(1_000);
  /** Far below LONG_TTL, so a replay that restores its longer budget is caught at once. */
  static final Duration SHORT_TTL = Duration.ofMillis(100);
  /** GET and PTTL in one step, so the value and the expiry belong to one instant. */
  static final String READ = "return {redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[1])}";
  static final AtomicInteger RESOURCES = new AtomicInteger();

  static RedisServerExtension redis;
  static RedisCommands<String, String> raw;

  LettuceLeaseGateway gateway;
  ExecutorService threads;

  @BeforeAll
  static void startServer() {
    redis = RedisServerExtension.start("concurrent-attempt-it");
    raw = redis.commands();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @BeforeEach
  void connect() {
    gateway = LettuceLeaseGateway.connect(redis.uri(), Duration.ofSeconds(2));
    threads = Executors.newFixedThreadPool(2);
  }

  @AfterEach
  void close() throws InterruptedException {
    threads.shutdownNow();
    threads.awaitTermination(10, TimeUnit.SECONDS);
    gateway.close();
  }

  RedisLeaseAdapter adapter(FenceMode mode) {
    return RedisLeaseAdapter.builder(gateway).namespace("conc").driftBudget(DRIFT).fenceMode(mode).build();
  }

  static LeaseRequest request(String digest, Duration ttl, LeaseAttempt attempt) {
    return LeaseRequest.once("orders", digest, ttl, attempt);
  }

  static String freshDigest() {
    return ResourceDigests.sha256("concurrent-" + RESOURCES.incrementAndGet());
  }

  /** Spec Renew beside Replay: the watchdog shortens the lease while the application replays. */
  @Test
  void renewBesideAReplay_neverLeavesABudgetBeyondTheServerLease() throws Exception {
    RedisLeaseAdapter adapter = adapter(FenceMode.CLOCK_FLOOR);
    String digest = freshDigest();
    LeaseKeys keys = adapter.keys("orders", digest);
    loop(i -> {
      LeaseAttempt attempt = adapter.newAttempt("renew-race-" + i);
      LeaseHandle held = acquired(adapter.tryAcquire(request(digest, LONG_TTL, attempt)));
      List<Object> results = together(
          () -> held.renew(SHORT_TTL),
          () -> adapter.tryAcquire(request(digest, LONG_TTL, attempt)));
      LeaseHandle replayed = handleOf((AcquireOutcome) results.get(1));
      assertWithinServerLease(held, keys, attempt, "renewed handle");
      assertWithinServerLease(replayed, keys, attempt, "replay's handle");
      raw.del(keys.lease());
    });
  }

  /** Spec Release beside Replay: a replay that overlapped a release must not leave an ACTIVE handle without a key. */
  @Test
  void releaseBesideAReplay_neverLeavesAnActiveHandleWithoutTheKey() throws Exception {
    RedisLeaseAdapter adapter = adapter(FenceMode.CLOCK_FLOOR);
    String digest = freshDigest();
    LeaseKeys keys = adapter.keys("orders", digest);
    loop(i -> {
      LeaseAttempt attempt = adapter.newAttempt("release-race-" + i);
      LeaseHandle held = acquired(adapter.tryAcquire(request(digest, LONG_TTL, attempt)));
      List<Object> results = together(
          held::release,
          () -> adapter.tryAcquire(request(digest, LONG_TTL, attempt)));
      assertInstanceOf(ReleaseOutcome.Released.class, results.get(0));
      LeaseHandle replayed = handleOf((AcquireOutcome) results.get(1));
      assertWithinServerLease(held, keys, attempt, "released handle");
      assertWithinServerLease(replayed, keys, attempt, "replay's handle");
      raw.del(keys.lease());
    });
  }

  /**
   * One attempt, two resources, two threads: each resource's handle is its own (COUNTER tokens
   * are both 1, so a token cannot tell them apart), a replay of one never reaches the other's
   * handle, and each release really deletes its key.
   */
  @Test
  void oneAttemptForTwoResources_givesTwoIndependentHandles() throws Exception {
    RedisLeaseAdapter adapter = adapter(FenceMode.COUNTER);
    loop(i -> {
      LeaseAttempt attempt = adapter.newAttempt("two-keys-" + i);
      String d1 = freshDigest();
      String d2 = freshDigest();
      LeaseKeys k1 = adapter.keys("orders", d1);
      LeaseKeys k2 = adapter.keys("orders", d2);
      List<Object> held = together(
          () -> holdAndReplay(adapter, d1, Duration.ofSeconds(5), attempt),
          () -> holdAndReplay(adapter, d2, Duration.ofSeconds(2), attempt));
      LeaseHandle h1 = (LeaseHandle) held.get(0);
      LeaseHandle h2 = (LeaseHandle) held.get(1);
      assertWithinServerLease(h1, k1, attempt, "resource 1's handle");
      assertWithinServerLease(h2, k2, attempt, "resource 2's handle");
      List<Object> released = together(h1::release, h2::release);
      assertEquals(new ReleaseOutcome.Released(), released.get(0), "resource 1's release");
      assertEquals(new ReleaseOutcome.Released(), released.get(1), "resource 2's release");
      assertEquals(0, raw.exists(k1.lease(), k2.lease()), "both releases deleted their keys");
      raw.del(k1.fence(), k2.fence());
    });
  }

  /** Acquires {@code digest}, then replays it: the replay must answer with the same handle. */
  static LeaseHandle holdAndReplay(RedisLeaseAdapter adapter, String digest, Duration ttl, LeaseAttempt attempt) {
    LeaseHandle h = acquired(adapter.tryAcquire(request(digest, ttl, attempt)));
    AcquireOutcome replay = adapter.tryAcquire(request(digest, ttl, attempt));
    assertSame(h, assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, replay).handle(),
        "a replay of this resource answers with this resource's handle");
    return h;
  }

  /**
   * ValidityWithinServerLease, checked from outside while nothing is in flight. The handle's
   * deadline D is at least t0 + remaining (read after t0); the server's expiry E, read at some ts
   * in [t0, t2], is at most ts + PTTL + 1 ms (PTTL is whole ms) and ts <= t2. The invariant D <= E
   * then gives remaining <= PTTL + (t2 - t0) + 1 ms, and a handle with any validity left needs our
   * value on the server unless the key's expiry passed inside that window. Nothing here can fail
   * for a correct handle, whatever the scheduling.
   */
  static void assertWithinServerLease(LeaseHandle h, LeaseKeys keys, LeaseAttempt attempt, String what) {
    long t0 = System.nanoTime();
    Duration remaining = h.remainingValidity();
    List<Object> read = raw.eval(READ, ScriptOutputType.MULTI, keys.lease());
    long t2 = System.nanoTime();
    if (remaining.isZero()) {
      return;
    }
    boolean ours = attempt.ownership().equals(read.get(0));
    long pttl = ours ? Math.max(0, (Long) read.get(1)) : 0;
    long slackNanos = (t2 - t0) + Duration.ofMillis(1).toNanos();
    if (remaining.toNanos() > pttl * 1_000_000L + slackNanos) {
      throw new AssertionError(what + " is " + h.state() + " with " + remaining.toMillis() + " ms left, but the server "
          + (ours ? "holds it for " + pttl + " ms" : "does not hold it") + " (read within "
          + (t2 - t0) / 1_000 + " us): " + h);
    }
  }

  static LeaseHandle acquired(AcquireOutcome outcome) {
    return assertInstanceOf(AcquireOutcome.Acquired.class, outcome).handle();
  }

  static LeaseHandle handleOf(AcquireOutcome outcome) {
    if (outcome instanceof AcquireOutcome.Acquired a) {
      return a.handle();
    }
    return assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class, outcome).handle();
  }

  /** Runs both calls on the two worker threads, released together by a barrier; returns both results. */
  List<Object> together(Callable<?> first, Callable<?> second) throws Exception {
    CyclicBarrier start = new CyclicBarrier(2);
    Future<?> a = threads.submit(() -> {
      start.await();
      return first.call();
    });
    Future<?> b = threads.submit(() -> {
      start.await();
      return second.call();
    });
    return List.of(result(a), result(b));
  }

  private static Object result(Future<?> f) throws Exception {
    try {
      return f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw (Exception) e.getCause();
    }
  }

  interface Iteration {
    void run(int i) throws Exception;
  }

  /** Up to ITERATIONS iterations or TIME_LIMIT; the first failure names its iteration. */
  static void loop(Iteration body) throws Exception {
    long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
    for (int i = 0; i < ITERATIONS && System.nanoTime() - deadline < 0; i++) {
      try {
        body.run(i);
      } catch (AssertionError e) {
        throw new AssertionError("iteration " + i + ": " + e.getMessage(), e);
      }
    }
  }
}
