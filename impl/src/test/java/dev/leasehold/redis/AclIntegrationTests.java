package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisServerExtension;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The least-privilege ACL rule of docs/operations.md, run for real: every operation, the wait loop with
 * release signals and the watchdog as a user with exactly that rule (and the server's ACL LOG
 * shows nothing denied); and a user missing one permission gets a typed refusal naming it, with
 * nothing changed, every time it asks.
 */
@SuppressWarnings("unchecked") // assertInstanceOf on the generic LeaseResult records
class AclIntegrationTests {
  static final String PURPOSE = "invoice-run";
  static final String NAMESPACE = "billing";
  /** The rule's permissions after the user name and password; docs/operations.md, "ACL", shows the same line. */
  static final String RULE = "resetkeys resetchannels -@all ~billing:lease:* &billing:lease:* +evalsha +evalsha_ro "
      + "+eval +eval_ro +info +wait +subscribe +unsubscribe +get +set +time +pttl +pexpire +del +publish";
  static final AtomicInteger RESOURCES = new AtomicInteger();

  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension("acl-it");

  String digest;

  @BeforeEach
  void newResource() {
    digest = ResourceDigests.sha256("resource-" + RESOURCES.incrementAndGet());
    REDIS.commands().aclLogReset();
  }

  /** Creates (or resets) {@code user} with the rule of docs/operations.md, changed by {@code changes}. */
  static RedisURI user(String user, String... changes) {
    RedisCommands<String, String> admin = REDIS.commands();
    List<String> args = new ArrayList<>(List.of("SETUSER", user, "reset", "on", ">pw-" + user));
    args.addAll(Arrays.asList(RULE.split(" ")));
    args.addAll(Arrays.asList(changes));
    admin.dispatch(io.lettuce.core.protocol.CommandType.ACL, new io.lettuce.core.output.StatusOutput<>(
        io.lettuce.core.codec.StringCodec.UTF8), new io.lettuce.core.protocol.CommandArgs<>(
        io.lettuce.core.codec.StringCodec.UTF8).addValues(args));
    return RedisURI.builder(REDIS.uri()).withAuthentication(user, "pw-" + user).build();
  }

  static RedisLeases.Builder leases(RedisURI uri) {
    return RedisLeases.builder(uri).namespace(NAMESPACE).commandTimeout(Duration.ofSeconds(1));
  }

  LeaseKeys keys(RedisLeases leases) {
    return leases.keys(PURPOSE, digest);
  }

  @Test
  void readmeShowsTheRule() throws IOException {
    String readme = Files.readString(Path.of("..", "docs", "operations.md"), StandardCharsets.UTF_8);
    assertTrue(readme.contains("ACL SETUSER leasehold on >password " + RULE), "docs/operations.md shows the rule this test runs");
  }

  @Test
  void everyOperation_theWaitLoop_andTheWatchdog_runAsTheLeastPrivilegeUser() throws Exception {
    RedisURI uri = user("leasehold");
    // No script cached: the first call of each finds NOSCRIPT and runs the script by its text, as
    // after a restart or a failover.
    REDIS.commands().scriptFlush();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (RedisLeases leases = leases(uri).build();
        RedisLeases waiters = leases(uri).build();
        RedisLeases acked = leases(uri).releaseSignals(false).replicaAck(1, Duration.ofMillis(20)).build()) {
      LeaseAttempt attempt = leases.newAttempt("op");
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class,
          leases.port().tryAcquire(LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(10), attempt))).handle();
      assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
          leases.port().tryAcquire(LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(10), attempt)));
      assertTrue(assertInstanceOf(InspectOutcome.Held.class,
          leases.port().inspect(new LeaseInspection(PURPOSE, digest, attempt))).holderIsThisAttempt());
      assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(Duration.ofSeconds(10)));
      // The wait loop: a waiter sleeps on the release channel and is woken by the release.
      LeaseAttempt waiterAttempt = waiters.newAttempt("waiter");
      long firstSleeps = waiters.releaseSignals().orElseThrow().subscribedWakeups();
      Future<AcquireOutcome> waiter = pool.submit(() -> waiters.port().tryAcquire(
          new LeaseRequest(PURPOSE, digest, Duration.ofSeconds(20), Duration.ofSeconds(5), waiterAttempt)));
      String channel = keys(leases).releaseChannel();
      // Asleep on the channel for its second sleep, not merely subscribed: a waiter's first sleep ends
      // when its subscription is acknowledged (it tries once more, and that try could win the release
      // unsignalled), and it counts among the sleepers until then.
      ReleaseSignals signals = waiters.releaseSignals().orElseThrow();
      RedisLeasesIntegrationTests.await(() -> signals.subscribedWakeups() > firstSleeps && signals.sleepersOn(channel) == 1
          && REDIS.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) == 1, Duration.ofSeconds(5));
      assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
      LeaseHandle next = assertInstanceOf(AcquireOutcome.Acquired.class, waiter.get(10, TimeUnit.SECONDS)).handle();
      assertEquals(1, signals.signalledWakeups(), "woken by the release signal");
      assertInstanceOf(ReleaseOutcome.Released.class, next.release());
      // The watchdog renews across several TTLs, and withLease runs and releases.
      Duration ttl = Duration.ofMillis(300);
      LeaseResult<Long> result = leases.withLease(new LeaseRequest(PURPOSE, digest, Duration.ZERO, ttl,
          leases.newAttempt("work")), ctx -> {
            Thread.sleep(ttl.multipliedBy(4).toMillis()); // longer than the TTL: only renewals keep it
            ctx.throwIfCancelled();
            return REDIS.commands().pttl(keys(leases).lease());
          });
      LeaseResult.Completed<Long> done = assertInstanceOf(LeaseResult.Completed.class, result);
      assertTrue(done.value() > 0L, "still held after four TTLs: " + done.value());
      // WAIT is permitted: with no replica the grant is honestly unacknowledged, not refused.
      LeaseHandle unacked = assertInstanceOf(AcquireOutcome.Acquired.class, acked.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), acked.newAttempt("acked")))).handle();
      unacked.release();
    } finally {
      pool.shutdownNow();
    }
    assertEquals(List.of(), REDIS.commands().aclLog(), "the server denied nothing");
  }

  @Test
  void acquire_withoutSet_isARefusalNamingIt_everyTime_withNothingWritten() {
    try (RedisLeases leases = leases(user("no-set", "-set")).build()) {
      LeaseAttempt attempt = leases.newAttempt("op");
      for (int i = 0; i < 3; i++) {
        AcquireOutcome.Unavailable refused = assertInstanceOf(AcquireOutcome.Unavailable.class,
            leases.port().tryAcquire(LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), attempt)));
        assertTrue(refused.reason().contains("NOPERM") && refused.reason().contains("set"), refused.reason());
        assertFalse(refused.reason().contains(attempt.ownerToken()), "no owner token in the reason");
      }
      assertEquals(0, REDIS.commands().exists(keys(leases).lease(), keys(leases).fence()), "nothing written");
      // The wait loop tries again until its wait is over (a refusal may pass, an operator may fix
      // the rule), then answers the refusal: Unavailable, not Indeterminate, and nothing written.
      long start = System.nanoTime();
      AcquireOutcome.Unavailable waited = assertInstanceOf(AcquireOutcome.Unavailable.class, leases.port().tryAcquire(
          new LeaseRequest(PURPOSE, digest, Duration.ofMillis(500), Duration.ofSeconds(5), attempt)));
      assertTrue(waited.reason().contains("NOPERM"), waited.reason());
      assertTrue(System.nanoTime() - start < Duration.ofSeconds(3).toNanos(), "bounded by the wait");
      assertEquals(0, REDIS.commands().exists(keys(leases).lease(), keys(leases).fence()), "nothing written");
    }
  }

  @Test
  void counterMode_needsNoTime_whileClockFloorIsRefusedWithoutIt() {
    RedisURI uri = user("no-time", "-time");
    try (RedisLeases leases = leases(uri).fenceMode(FenceMode.COUNTER).build()) {
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, leases.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), leases.newAttempt("op")))).handle();
      assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(Duration.ofSeconds(5)));
      assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
    }
    try (RedisLeases leases = leases(uri).fenceMode(FenceMode.CLOCK_FLOOR).build()) {
      AcquireOutcome.Unavailable refused = assertInstanceOf(AcquireOutcome.Unavailable.class, leases.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), leases.newAttempt("op"))));
      assertTrue(refused.reason().contains("NOPERM") && refused.reason().contains("time"), refused.reason());
      assertEquals(0, REDIS.commands().exists(keys(leases).lease()), "no lease written");
    }
  }

  @Test
  void acquire_withoutTheKeyPattern_isARefusal() {
    try (RedisLeases leases = leases(user("no-keys", "resetkeys", "~billing:other:*")).build()) {
      AcquireOutcome.Unavailable refused = assertInstanceOf(AcquireOutcome.Unavailable.class, leases.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), leases.newAttempt("op"))));
      assertTrue(refused.reason().contains("NOPERM") && refused.reason().contains("keys"), refused.reason());
    }
  }

  @Test
  void release_withoutTheChannel_isARefusalNamingPublish_andTheLeaseStaysHeld() {
    try (RedisLeases leases = leases(user("no-channel", "resetchannels")).releaseSignals(false).build()) {
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, leases.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), leases.newAttempt("op")))).handle();
      for (int i = 0; i < 2; i++) {
        ReleaseOutcome.Unavailable refused = assertInstanceOf(ReleaseOutcome.Unavailable.class, handle.release());
        assertTrue(refused.reason().contains("NOPERM") && refused.reason().contains("publish"), refused.reason());
      }
      // A refusal changed nothing: the key is still there, and the handle still ACTIVE with it.
      assertEquals(1, REDIS.commands().exists(keys(leases).lease()), "the release deleted nothing");
      assertEquals(LeaseState.ACTIVE, handle.state());
    }
  }

  @Test
  void renew_withoutPexpire_isARefusal_andTheWatchdogReportsTheLossOnce() throws InterruptedException {
    try (RedisLeases leases = leases(user("no-pexpire", "-pexpire")).releaseSignals(false).build()) {
      Duration ttl = Duration.ofMillis(400);
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, leases.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, ttl, leases.newAttempt("op")))).handle();
      RenewOutcome.Unavailable refused = assertInstanceOf(RenewOutcome.Unavailable.class, handle.renew(ttl));
      assertTrue(refused.reason().contains("NOPERM") && refused.reason().contains("pexpire"), refused.reason());
      List<LeaseWatchdog.LeaseLoss> losses = new CopyOnWriteArrayList<>();
      leases.watchdog().watch(handle, ttl, losses::add);
      RedisLeasesIntegrationTests.await(() -> !losses.isEmpty(), Duration.ofSeconds(5));
      assertEquals(1, losses.size(), losses.toString());
      assertEquals(LeaseState.LOST, losses.get(0).state(), "the refused renewals let it run out: LOST, not UNKNOWN");
    }
  }

  @Test
  void inspect_withoutPttl_isAnUnavailable_notAnIndeterminate() {
    try (RedisLeases leases = leases(user("no-pttl", "-pttl")).releaseSignals(false).build()) {
      InspectOutcome.Unavailable refused = assertInstanceOf(InspectOutcome.Unavailable.class, leases.port().inspect(
          new LeaseInspection(PURPOSE, digest, leases.newAttempt("op"))));
      assertTrue(refused.reason().contains("NOPERM") && refused.reason().contains("pttl"), refused.reason());
    }
  }
}
