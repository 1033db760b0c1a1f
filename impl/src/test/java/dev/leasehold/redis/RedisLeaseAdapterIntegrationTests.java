package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.StubFaultGateway.Injected;
import dev.leasehold.testkit.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The adapter against a real redis-server this class starts. One test per row of CONTRACT.md's
 * defect table (named {@code defectN_...}) plus the server-side surprises a lease must survive.
 */
class RedisLeaseAdapterIntegrationTests {
  static final Duration DRIFT = Duration.ofMillis(10);
  static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
  static final AtomicInteger RESOURCES = new AtomicInteger();

  static RedisServerExtension redis;
  static RedisCommands<String, String> raw;

  /** The client's monotonic clock: real time plus a skew a test may push forward. */
  final AtomicLong skew = new AtomicLong();
  LettuceLeaseGateway lettuce;
  StubFaultGateway gateway;
  RedisLeaseAdapter adapter;
  String digest;
  LeaseKeys keys;

  @BeforeAll
  static void startServer() {
    redis = RedisServerExtension.start("adapter-it");
    raw = redis.commands();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @BeforeEach
  void newAdapter() {
    lettuce = LettuceLeaseGateway.connect(redis.uri(), COMMAND_TIMEOUT);
    gateway = new StubFaultGateway(lettuce);
    adapter = RedisLeaseAdapter.builder(gateway)
        .namespace("it")
        .driftBudget(DRIFT)
        .monotonicNanos(() -> System.nanoTime() + skew.get())
        .build();
    digest = ResourceDigests.sha256("resource-" + RESOURCES.incrementAndGet());
    keys = adapter.keys("orders", digest);
  }

  @AfterEach
  void closeGateway() {
    gateway.close();
  }

  LeaseRequest request(LeaseAttempt attempt, Duration ttl) {
    return LeaseRequest.once("orders", digest, ttl, attempt);
  }

  LeaseHandle acquire(LeaseAttempt attempt, Duration ttl) {
    return assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(request(attempt, ttl))).handle();
  }

  // ---------------------------------------------------------------- defect table, row by row

  @Test
  void fencing_grantsCarryMonotonicFencingTokens_replayKeepsIt_renewKeepsIt_inspectShowsIt() {
    LeaseHandle first = acquire(adapter.newAttempt("op-1"), Duration.ofSeconds(5));
    long t1 = first.fencingToken().orElseThrow();
    assertEquals(LeaseGuarantee.FENCED, first.guarantee());
    assertInstanceOf(ReleaseOutcome.Released.class, first.release());

    LeaseAttempt second = adapter.newAttempt("op-2");
    LeaseHandle again = acquire(second, Duration.ofSeconds(5));
    long t2 = again.fencingToken().orElseThrow();
    assertTrue(t2 > t1, "a later grant has a larger token: " + t1 + " then " + t2);

    LeaseHandle replayed = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
        adapter.tryAcquire(request(second, Duration.ofSeconds(5)))).handle();
    assertEquals(t2, replayed.fencingToken().orElseThrow());
    assertInstanceOf(RenewOutcome.Renewed.class, again.renew(Duration.ofSeconds(5)));
    assertEquals(t2, again.fencingToken().orElseThrow());
    InspectOutcome.Held held = assertInstanceOf(InspectOutcome.Held.class,
        adapter.inspect(new LeaseInspection("orders", digest, second)));
    assertTrue(held.holderIsThisAttempt());
    assertEquals(t2, held.fencingToken().orElseThrow());
  }

  @Test
  void fencing_counterModeTokensCountUpByOne() {
    RedisLeaseAdapter counting = RedisLeaseAdapter.builder(gateway).namespace("it").driftBudget(DRIFT)
        .fenceMode(FenceMode.COUNTER).build();
    LeaseHandle a = assertInstanceOf(AcquireOutcome.Acquired.class,
        counting.tryAcquire(request(counting.newAttempt("a"), Duration.ofSeconds(5)))).handle();
    a.release();
    LeaseHandle b = assertInstanceOf(AcquireOutcome.Acquired.class,
        counting.tryAcquire(request(counting.newAttempt("b"), Duration.ofSeconds(5)))).handle();
    assertEquals(a.fencingToken().orElseThrow() + 1, b.fencingToken().orElseThrow());
  }

  @Test
  void replayBudget_replayBudgetIsTheReplyPttlNotAFullTtl() {
    LeaseAttempt attempt = adapter.newAttempt("op-1");
    acquire(attempt, Duration.ofSeconds(30));
    raw.pexpire(keys.lease(), 300); // most of the lease has passed on the server
    LeaseHandle replayed = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
        adapter.tryAcquire(request(attempt, Duration.ofSeconds(30)))).handle();
    assertTrue(replayed.remainingValidity().compareTo(Duration.ofMillis(300).minus(DRIFT)) <= 0,
        "replay budget must not exceed PTTL - drift: " + replayed.remainingValidity());
    assertTrue(raw.pttl(keys.lease()) <= 300, "a replay never extends the server lease");
  }

  @Test
  void replayBudget_replayOfANewHandleAfterLocalLossStillGetsOnlyThePttl() {
    LeaseAttempt attempt = adapter.newAttempt("op-1");
    LeaseHandle first = acquire(attempt, Duration.ofSeconds(30));
    skew.addAndGet(Duration.ofSeconds(31).toNanos()); // the client believes the budget is spent
    assertEquals(LeaseState.LOST, first.state());
    raw.pexpire(keys.lease(), 200);
    LeaseHandle replayed = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
        adapter.tryAcquire(request(attempt, Duration.ofSeconds(30)))).handle();
    assertTrue(replayed.remainingValidity().compareTo(Duration.ofMillis(200)) < 0);
    assertEquals(LeaseState.LOST, first.state(), "LOST stays LOST");
  }

  @Test
  void handleState_localExpiryIsStoredAndRenewAfterLostSendsNothing() {
    LeaseHandle handle = acquire(adapter.newAttempt("op-1"), Duration.ofSeconds(5));
    skew.addAndGet(Duration.ofSeconds(6).toNanos());
    assertEquals(LeaseState.LOST, handle.state());
    skew.set(0); // even if the clock read differently now, LOST is stored
    assertEquals(LeaseState.LOST, handle.state());
    int before = gateway.sent.get();
    assertEquals(new RenewOutcome.NotActive(LeaseState.LOST), handle.renew(Duration.ofSeconds(5)));
    assertEquals(new ReleaseOutcome.NotActive(LeaseState.LOST), handle.release());
    assertEquals(before, gateway.sent.get(), "nothing was sent from LOST");
    assertEquals(LeaseState.LOST, handle.state());
  }

  @Test
  void handleState_releasedIsTerminalAndRenewSendsNothing() {
    LeaseHandle handle = acquire(adapter.newAttempt("op-1"), Duration.ofSeconds(5));
    assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
    int before = gateway.sent.get();
    assertEquals(new RenewOutcome.NotActive(LeaseState.RELEASED), handle.renew(Duration.ofSeconds(5)));
    assertEquals(new ReleaseOutcome.NotActive(LeaseState.RELEASED), handle.release());
    assertEquals(before, gateway.sent.get());
    assertEquals(0, raw.exists(keys.lease()));
  }

  @Test
  void handleState_renewFromUnknownRestoresActive() {
    LeaseHandle handle = acquire(adapter.newAttempt("op-1"), Duration.ofSeconds(5));
    gateway.then(Injected.LOSE_REPLY);
    assertInstanceOf(RenewOutcome.Indeterminate.class, handle.renew(Duration.ofSeconds(5)));
    assertEquals(LeaseState.UNKNOWN, handle.state());
    assertEquals(Duration.ZERO, handle.remainingValidity(), "UNKNOWN is not relied on");
    assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(Duration.ofSeconds(5)));
    assertEquals(LeaseState.ACTIVE, handle.state());
  }

  @Test
  void handleState_unknownAfterLostReleaseNeverBecomesActiveAgain() {
    LeaseHandle handle = acquire(adapter.newAttempt("op-1"), Duration.ofSeconds(5));
    gateway.then(Injected.REFUSE_BEFORE_SEND);
    assertInstanceOf(ReleaseOutcome.Unavailable.class, handle.release());
    assertEquals(LeaseState.ACTIVE, handle.state(), "a release that was not sent changes nothing");
    raw.set("unrelated", "x");
    gateway.then(Injected.LOSE_REPLY);
    assertInstanceOf(ReleaseOutcome.Indeterminate.class, handle.release());
    assertEquals(LeaseState.UNKNOWN, handle.state());
    assertEquals(new RenewOutcome.NotActive(LeaseState.UNKNOWN), handle.renew(Duration.ofSeconds(5)));
    assertEquals(ReleaseOutcome.AlreadyAbsent.class, handle.release().getClass(), "retrying the release is safe");
    assertEquals(LeaseState.RELEASED, handle.state());
  }

  @Test
  void certainty_outOfMemoryServerIsOverloaded_andNothingIsApplied() {
    raw.configSet("maxmemory", "1");
    try {
      AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("op-1"), Duration.ofSeconds(5)));
      assertInstanceOf(AcquireOutcome.Overloaded.class, outcome, outcome.toString());
    } finally {
      raw.configSet("maxmemory", "0");
    }
    assertEquals(0, raw.exists(keys.lease(), keys.fence()));
  }

  @Test
  void observedServerExpiryComesFromTheReplyPttl() {
    LeaseAttempt attempt = adapter.newAttempt("op-1");
    acquire(attempt, Duration.ofSeconds(30));
    raw.pexpire(keys.lease(), 1_000);
    Instant before = Instant.now();
    LeaseHandle replayed = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
        adapter.tryAcquire(request(attempt, Duration.ofSeconds(30)))).handle();
    Instant expiry = replayed.observedServerExpiry();
    assertTrue(expiry.isBefore(before.plusMillis(1_100)), "expiry from PTTL 1000 ms, not the 30 s TTL: " + expiry);
    assertTrue(expiry.isAfter(before.plusMillis(500)), expiry.toString());
  }

  @Test
  void ttlAtOrBelowDrift_isRejectedBeforeAnyIo_andTheServerIsUntouched() {
    LeaseAttempt attempt = adapter.newAttempt("op-1");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> adapter.tryAcquire(request(attempt, DRIFT)));
    assertTrue(e.getMessage().startsWith("leaseTtl"), e.getMessage());
    assertEquals(0, gateway.sent.get());
    assertEquals(0, raw.exists(keys.lease(), keys.fence()));

    LeaseHandle handle = acquire(attempt, Duration.ofSeconds(5));
    int sent = gateway.sent.get();
    long pttl = raw.pttl(keys.lease());
    IllegalArgumentException renew = assertThrows(IllegalArgumentException.class, () -> handle.renew(Duration.ofMillis(5)));
    assertTrue(renew.getMessage().startsWith("ttl"), renew.getMessage());
    assertThrows(IllegalArgumentException.class, () -> handle.renew(null));
    assertThrows(IllegalArgumentException.class, () -> handle.renew(Duration.ofDays(2)));
    assertEquals(sent, gateway.sent.get());
    assertTrue(raw.pttl(keys.lease()) <= pttl, "the server lease was not touched");
    assertEquals(LeaseState.ACTIVE, handle.state());
  }

  @Test
  void ambiguousShorterRenew_budgetIsTheMinimumOfOldDeadlineAndTheShortTtl() {
    LeaseHandle handle = acquire(adapter.newAttempt("op-1"), Duration.ofSeconds(30));
    gateway.then(Injected.LOSE_REPLY);
    assertInstanceOf(RenewOutcome.Indeterminate.class, handle.renew(Duration.ofMillis(400)));
    assertTrue(raw.pttl(keys.lease()) <= 400, "the lost renew did shorten the server lease");
    // A later successful renew with a long TTL stays capped by the pending short one.
    assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(Duration.ofSeconds(30)));
    assertTrue(handle.remainingValidity().compareTo(Duration.ofMillis(400)) <= 0,
        "budget after an ambiguous short renew: " + handle.remainingValidity());
  }

  // ---------------------------------------------------------------- the server surprises a lease

  @Test
  void keyDeletedFromOutside_renewIsLost_releaseIsAlreadyAbsent() {
    LeaseHandle handle = acquire(adapter.newAttempt("op-1"), Duration.ofSeconds(5));
    raw.del(keys.lease());
    assertInstanceOf(RenewOutcome.Lost.class, handle.renew(Duration.ofSeconds(5)));
    assertEquals(LeaseState.LOST, handle.state());

    LeaseHandle other = acquire(adapter.newAttempt("op-2"), Duration.ofSeconds(5));
    raw.del(keys.lease());
    assertInstanceOf(ReleaseOutcome.AlreadyAbsent.class, other.release());
    assertEquals(LeaseState.RELEASED, other.state());
  }

  @Test
  void keyOverwrittenFromOutside_renewIsLost_releaseIsNotOwner_andTheForeignValueStays() {
    LeaseHandle handle = acquire(adapter.newAttempt("op-1"), Duration.ofSeconds(5));
    raw.set(keys.lease(), "someone-else:op", io.lettuce.core.SetArgs.Builder.px(5_000));
    assertInstanceOf(ReleaseOutcome.NotOwner.class, handle.release());
    assertEquals(LeaseState.LOST, handle.state());
    assertEquals("someone-else:op", raw.get(keys.lease()));
    assertEquals(new RenewOutcome.NotActive(LeaseState.LOST), handle.renew(Duration.ofSeconds(1)));
  }

  @Test
  void foreignKeyWithNoExpiry_isContendedWithTheFallbackRetryAfter() {
    raw.set(keys.lease(), "forever:op");
    AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("op-1"), Duration.ofSeconds(5)));
    assertEquals(new AcquireOutcome.Contended(RedisLeaseConfig.DEFAULT_CONTENTION_RETRY_AFTER), outcome);
    assertEquals(-1, raw.pttl(keys.lease()), "the foreign key is left alone");
  }

  @Test
  void wrongTypeValue_isNeverTakenOrDeleted() {
    LeaseAttempt attempt = adapter.newAttempt("op-1");
    LeaseHandle handle = acquire(attempt, Duration.ofSeconds(5));
    raw.del(keys.lease());
    raw.hset(keys.lease(), "field", "value");
    raw.pexpire(keys.lease(), 5_000);
    assertInstanceOf(AcquireOutcome.Contended.class, adapter.tryAcquire(request(adapter.newAttempt("op-2"), Duration.ofSeconds(5))));
    InspectOutcome.Held held = assertInstanceOf(InspectOutcome.Held.class, adapter.inspect(new LeaseInspection("orders", digest, attempt)));
    assertFalse(held.holderIsThisAttempt());
    assertInstanceOf(RenewOutcome.Lost.class, handle.renew(Duration.ofSeconds(5)));
    assertEquals("hash", raw.type(keys.lease()));
  }

  /**
   * ACQUIRE writes the lease before the counter, so it reads the counter first: one it cannot
   * raise as INCR would (not a decimal integer, not a string) refuses the grant before anything is
   * written, and the lease key stays free. A held key never needed the counter: another holder's
   * key is still Contended, as before.
   */
  @Test
  void counterThatIsNotAnInteger_refusesTheGrant_withNothingWritten_butAHeldKeyIsStillContended() {
    LeaseAttempt other = adapter.newAttempt("other");
    for (Runnable corrupt : List.<Runnable>of(() -> raw.set(keys.fence(), "twelve"), () -> raw.set(keys.fence(), "1.5"),
        () -> raw.set(keys.fence(), "0x10"), () -> raw.set(keys.fence(), "007"), () -> raw.set(keys.fence(), " 7"),
        () -> raw.hset(keys.fence(), "field", "7"))) {
      raw.del(keys.fence());
      corrupt.run();
      String before = raw.type(keys.fence()).equals("string") ? raw.get(keys.fence()) : "hash";
      AcquireOutcome outcome = adapter.tryAcquire(request(adapter.newAttempt("op-1"), Duration.ofSeconds(5)));
      assertInstanceOf(AcquireOutcome.Indeterminate.class, outcome, "the server answered ERR, classified as ambiguous: "
          + outcome);
      assertEquals(0, raw.exists(keys.lease()), "no lease without a token: " + outcome);
      assertEquals(before, raw.type(keys.fence()).equals("string") ? raw.get(keys.fence()) : "hash", "counter untouched");

      raw.set(keys.lease(), other.ownership(), SetArgs.Builder.px(5_000));
      assertInstanceOf(AcquireOutcome.Contended.class, adapter.tryAcquire(request(adapter.newAttempt("op-2"),
          Duration.ofSeconds(5))), "held by another: a held key does not need a valid counter");
      raw.del(keys.lease());
    }
    raw.del(keys.fence());
    assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(request(adapter.newAttempt("op-3"),
        Duration.ofSeconds(5))));
  }


  @Test
  void sameOwnerOtherOperation_neverInheritsTheLease() {
    LeaseAttempt first = adapter.newAttempt("op-1");
    acquire(first, Duration.ofSeconds(5));
    LeaseAttempt sibling = new LeaseAttempt(first.ownerToken(), "op-2");
    assertEquals(new AcquireOutcome.OwnerOperationConflict(), adapter.tryAcquire(request(sibling, Duration.ofSeconds(5))));
    AcquireOutcome.Contended contended = assertInstanceOf(AcquireOutcome.Contended.class,
        adapter.tryAcquire(request(adapter.newAttempt("op-3"), Duration.ofSeconds(5))));
    assertTrue(contended.retryAfter().toMillis() > 4_000 && contended.retryAfter().toMillis() <= 5_000,
        "retryAfter is the holder's PTTL: " + contended.retryAfter());
  }

  /**
   * RENEW and RELEASE check the whole value, not the owner token: handles of other operations of
   * the same owner, whose leases the server dropped before their handles noticed, send both
   * against the value of the operation that holds the lease now, and change nothing.
   */
  @Test
  void sameOwnerOtherOperation_cannotRenewOrReleaseTheLease() {
    LeaseAttempt holder = adapter.newAttempt("op-1");
    LeaseHandle renewing = acquire(new LeaseAttempt(holder.ownerToken(), "op-2"), Duration.ofSeconds(5));
    raw.del(keys.lease()); // dropped by the server (expired, evicted); the handle is still ACTIVE
    LeaseHandle releasing = acquire(new LeaseAttempt(holder.ownerToken(), "op-3"), Duration.ofSeconds(5));
    raw.del(keys.lease());
    LeaseHandle held = acquire(holder, Duration.ofSeconds(3));

    assertInstanceOf(RenewOutcome.Lost.class, renewing.renew(Duration.ofSeconds(60)));
    assertInstanceOf(ReleaseOutcome.NotOwner.class, releasing.release());
    assertEquals(holder.ownership(), raw.get(keys.lease()), "the holder's value stays");
    assertTrue(raw.pttl(keys.lease()) <= 3_000, "and so does its TTL: " + raw.pttl(keys.lease()));
    assertInstanceOf(RenewOutcome.Renewed.class, held.renew(Duration.ofSeconds(5)));
  }

  @Test
  void ownerTokens_neverAppearInToStringOutcomesOrLogs() {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    LeaseAttempt attempt = adapter.newAttempt("op-1");
    StringBuilder seen = new StringBuilder();
    try {
      AcquireOutcome acquired = adapter.tryAcquire(request(attempt, Duration.ofSeconds(5)));
      LeaseHandle handle = ((AcquireOutcome.Acquired) acquired).handle();
      seen.append(acquired).append(handle).append(attempt).append(request(attempt, Duration.ofSeconds(5)));
      gateway.then(Injected.LOSE_REPLY);
      seen.append(handle.renew(Duration.ofSeconds(5)));
      gateway.then(Injected.REFUSE_BEFORE_SEND);
      seen.append(handle.release());
      seen.append(adapter.inspect(new LeaseInspection("orders", digest, attempt)));
      seen.append(adapter.tryAcquire(request(new LeaseAttempt(attempt.ownerToken(), "op-2"), Duration.ofSeconds(5))));
    } finally {
      System.setErr(err);
    }
    assertFalse(seen.toString().contains(attempt.ownerToken()), seen.toString());
    assertFalse(captured.toString(StandardCharsets.UTF_8).contains(attempt.ownerToken()));
    assertTrue(seen.toString().contains("op-1"));
  }

  @Test
  void inspect_absentHeldAndReadOnly() {
    LeaseAttempt attempt = adapter.newAttempt("op-1");
    assertEquals(new InspectOutcome.Absent(), adapter.inspect(new LeaseInspection("orders", digest, attempt)));
    assertNull(raw.get(keys.lease()), "inspect wrote nothing");
    acquire(attempt, Duration.ofSeconds(5));
    long pttl = raw.pttl(keys.lease());
    InspectOutcome.Held held = assertInstanceOf(InspectOutcome.Held.class, adapter.inspect(new LeaseInspection("orders", digest, attempt)));
    assertTrue(held.holderIsThisAttempt());
    assertTrue(held.remaining().toMillis() <= pttl);
    assertFalse(assertInstanceOf(InspectOutcome.Held.class,
        adapter.inspect(new LeaseInspection("orders", digest, adapter.newAttempt("op-2")))).holderIsThisAttempt());
  }

  // ---------------------------------------------------------------- helpers

  /** Waits until lettuce has noticed the dead server, so the next command is rejected unsent. */
  static void awaitDisconnected(LettuceLeaseGateway g) {
    awaitCondition(() -> {
      try {
        g.inspect(new LeaseKeys("probe"), "x");
        return false;
      } catch (GatewayException e) {
        return e.failure() == GatewayException.Failure.NOT_SENT;
      }
    });
  }

  static void awaitConnected(LettuceLeaseGateway g) {
    awaitCondition(() -> {
      try {
        g.inspect(new LeaseKeys("probe"), "x");
        return true;
      } catch (GatewayException e) {
        return false;
      }
    });
  }

  static void awaitBusy(RedisClient client) {
    awaitCondition(() -> {
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        c.sync().ping();
        return false;
      } catch (io.lettuce.core.RedisBusyException e) {
        return true;
      } catch (RuntimeException e) {
        return e.getMessage() != null && e.getMessage().startsWith("BUSY");
      }
    });
  }

  static void awaitCondition(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new AssertionError("condition not reached within 10 s");
  }
}
