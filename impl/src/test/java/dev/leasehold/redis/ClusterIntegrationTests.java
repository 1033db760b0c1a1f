package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisCluster;
import dev.leasehold.testkit.redis.RedisClusterExtension;
import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.MigrateArgs;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The library against a real Redis Cluster (3 primaries, 3 replicas on loopback, one cluster for
 * the class): every port operation on resources spread over all three primaries, the wait loop
 * woken by a release published on another node, the watchdog and withLease, a slot migrated while
 * its leases are held and renewed, and WAIT answered by the primary that owns the lease's slot.
 */
@SuppressWarnings("unchecked") // assertInstanceOf on the generic LeaseResult records
class ClusterIntegrationTests {
  static final String PURPOSE = "cluster";
  static final AtomicInteger RESOURCES = new AtomicInteger();

  @RegisterExtension
  static final RedisClusterExtension CLUSTER = new RedisClusterExtension("cluster-it");

  static RedisCluster cluster() {
    return CLUSTER.cluster();
  }

  static RedisLeases.Builder leases() {
    return RedisLeases.builder(cluster().seedUri()).cluster().namespace("it-cluster")
        .commandTimeout(Duration.ofSeconds(1));
  }

  /** {@code perPrimary} new resource digests on each of the three primaries, by the lease key's slot. */
  static Map<Integer, List<String>> resourcesOnEveryPrimary(RedisLeases leases, int perPrimary) {
    Map<Integer, List<String>> byPrimary = new HashMap<>();
    while (byPrimary.size() < RedisCluster.DEFAULT_PRIMARIES
        || byPrimary.values().stream().anyMatch(l -> l.size() < perPrimary)) {
      String digest = ResourceDigests.sha256("resource-" + RESOURCES.incrementAndGet());
      int port = cluster().primaryOf(slot(leases, digest)).port();
      List<String> digests = byPrimary.computeIfAbsent(port, p -> new ArrayList<>());
      if (digests.size() < perPrimary) {
        digests.add(digest);
      }
    }
    return byPrimary;
  }

  static int slot(RedisLeases leases, String digest) {
    return SlotHash.getSlot(leases.keys(PURPOSE, digest).lease());
  }

  static LeaseHandle acquired(RedisLeases leases, String digest, Duration ttl, LeaseAttempt attempt) {
    AcquireOutcome outcome = leases.port().tryAcquire(LeaseRequest.once(PURPOSE, digest, ttl, attempt));
    return assertInstanceOf(AcquireOutcome.Acquired.class, outcome, outcome.toString()).handle();
  }

  @Test
  void everyOperation_onResourcesOfAllThreePrimaries_keepsLeaseAndFenceInOneSlot() {
    try (RedisLeases leases = leases().build()) {
      Map<Integer, List<String>> byPrimary = resourcesOnEveryPrimary(leases, 10);
      assertEquals(3, byPrimary.size(), "resources on every primary");
      Set<Integer> slots = new HashSet<>();
      for (Map.Entry<Integer, List<String>> entry : byPrimary.entrySet()) {
        for (String digest : entry.getValue()) {
          LeaseKeys keys = leases.keys(PURPOSE, digest);
          // The hash tag puts the lease key and its fencing counter in one slot: one script, one node.
          assertEquals(SlotHash.getSlot(keys.lease()), SlotHash.getSlot(keys.fence()), keys.toString());
          slots.add(SlotHash.getSlot(keys.lease()));
          LeaseAttempt attempt = leases.newAttempt("op");
          LeaseHandle handle = acquired(leases, digest, Duration.ofSeconds(5), attempt);
          assertTrue(handle.fencingToken().isPresent());
          RedisProcess primary = cluster().primaryOf(SlotHash.getSlot(keys.lease()));
          assertEquals(entry.getKey(), primary.port());
          assertEquals(attempt.ownership(), cluster().commands(primary).get(keys.lease()),
              "the lease is on the slot's primary");
          assertEquals(handle.fencingToken().getAsLong(), Long.parseLong(cluster().commands(primary).get(keys.fence())));
          InspectOutcome.Held held = assertInstanceOf(InspectOutcome.Held.class,
              leases.port().inspect(new LeaseInspection(PURPOSE, digest, attempt)));
          assertTrue(held.holderIsThisAttempt());
          assertEquals(handle.fencingToken(), held.fencingToken());
          assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
              leases.port().tryAcquire(LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), attempt)));
          assertInstanceOf(AcquireOutcome.Contended.class, leases.port().tryAcquire(
              LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), leases.newAttempt("other"))));
          assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(Duration.ofSeconds(3)));
          long pttl = cluster().commands(primary).pttl(keys.lease());
          assertTrue(pttl > 0 && pttl <= 3000, "renewed to 3 s: " + pttl);
          assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
          assertInstanceOf(InspectOutcome.Absent.class, leases.port().inspect(new LeaseInspection(PURPOSE, digest, attempt)));
          LeaseHandle next = acquired(leases, digest, Duration.ofSeconds(5), leases.newAttempt("next"));
          assertTrue(next.fencingToken().getAsLong() > handle.fencingToken().getAsLong(), "tokens rise per lease");
          assertInstanceOf(ReleaseOutcome.Released.class, next.release());
        }
      }
      assertEquals(30, slots.size(), "30 resources, 30 slots");
    }
  }

  @Test
  void connectCluster_runsTheScriptsOnEveryPrimary() {
    try (LettuceLeaseGateway gateway = LettuceLeaseGateway.connectCluster(cluster().seedUri(), Duration.ofSeconds(1));
        RedisLeases names = leases().releaseSignals(false).build()) {
      RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(gateway).namespace("it-cluster").build();
      for (List<String> digests : resourcesOnEveryPrimary(names, 2).values()) {
        for (String digest : digests) {
          LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class, adapter.tryAcquire(
              LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(2), adapter.newAttempt("op")))).handle();
          assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(Duration.ofSeconds(2)));
          assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
        }
      }
    }
  }

  @Test
  void waiters_areWokenByReleasesOnEveryPrimary_throughTheClusterBus() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (RedisLeases holders = leases().releaseSignals(false).build(); RedisLeases waiters = leases().build()) {
      // One resource per primary: the waiters' one pub/sub connection is on one node, so at least
      // two of the three releases are published on another node than the one it listens on.
      List<String> digests = resourcesOnEveryPrimary(holders, 1).values().stream().map(l -> l.get(0)).toList();
      List<LeaseHandle> held = new ArrayList<>();
      List<Future<AcquireOutcome>> waiting = new ArrayList<>();
      for (String digest : digests) {
        held.add(acquired(holders, digest, Duration.ofSeconds(30), holders.newAttempt("holder")));
        LeaseAttempt attempt = waiters.newAttempt("waiter");
        waiting.add(pool.submit(() -> waiters.port().tryAcquire(
            new LeaseRequest(PURPOSE, digest, Duration.ofSeconds(20), Duration.ofSeconds(5), attempt))));
      }
      ReleaseSignals signals = waiters.releaseSignals().orElseThrow();
      // Each waiter asleep on its channel for its second sleep, not merely subscribed: a first sleep
      // ends when the subscription is acknowledged (the waiter tries once more, and that try could win
      // the release unsignalled), and it counts among the sleepers until then.
      RedisLeasesIntegrationTests.await(() -> signals.subscribedWakeups() >= 3 && digests.stream().allMatch(d ->
          signals.sleepersOn(waiters.keys(PURPOSE, d).releaseChannel()) == 1) && subscribers(waiters, digests) == 3,
          Duration.ofSeconds(5));
      // The subscriptions live on the waiters' one pub/sub node; the releases run on the slots' primaries.
      long crossing = digests.stream().filter(d -> subscribersOn(cluster().primaryOf(slot(holders, d)), waiters, d) == 0)
          .count();
      assertTrue(crossing >= 2, "releases published on another node than the subscriber's: " + crossing);
      long released = System.nanoTime();
      for (LeaseHandle handle : held) {
        assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
      }
      for (Future<AcquireOutcome> waiter : waiting) {
        assertInstanceOf(ReleaseOutcome.Released.class,
            assertInstanceOf(AcquireOutcome.Acquired.class, waiter.get(10, TimeUnit.SECONDS)).handle().release());
      }
      long handoff = System.nanoTime() - released;
      assertEquals(3, signals.signalledWakeups(), "every waiter woken by its release signal");
      assertEquals(0, signals.timedWakeups(), "no sleep ran its full length (15 s and more)");
      assertTrue(handoff < Duration.ofSeconds(5).toNanos(), "handoff took " + Duration.ofNanos(handoff));
    } finally {
      pool.shutdownNow();
    }
  }

  static long subscribersOn(RedisProcess node, RedisLeases leases, String digest) {
    String channel = leases.keys(PURPOSE, digest).releaseChannel();
    return cluster().commands(node).pubsubNumsub(channel).getOrDefault(channel, 0L);
  }

  /** Subscribers of the digests' release channels, summed over every node (a subscription lives on one). */
  static long subscribers(RedisLeases leases, List<String> digests) {
    long total = 0;
    for (RedisProcess node : cluster().nodes()) {
      for (String digest : digests) {
        String channel = leases.keys(PURPOSE, digest).releaseChannel();
        total += cluster().commands(node).pubsubNumsub(channel).getOrDefault(channel, 0L);
      }
    }
    return total;
  }

  @Test
  void withLease_isRenewedByTheWatchdog_onEveryPrimary_andReleased() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try (RedisLeases leases = leases().build()) {
      // Long enough that a loaded machine's scheduling delays (hundreds of ms under two busy
      // loops) cannot outlast the TTL between two renewals: what is tested is that they happen.
      Duration ttl = Duration.ofSeconds(1);
      List<Future<LeaseResult<Long>>> results = new ArrayList<>();
      List<String> digests = resourcesOnEveryPrimary(leases, 2).values().stream().flatMap(List::stream).toList();
      for (String digest : digests) {
        LeaseKeys keys = leases.keys(PURPOSE, digest);
        results.add(pool.submit(() -> leases.withLease(
            new LeaseRequest(PURPOSE, digest, Duration.ZERO, ttl, leases.newAttempt("work")), ctx -> {
              // Work for three TTLs: only the watchdog's renewals keep the lease.
              long end = System.nanoTime() + ttl.multipliedBy(3).toNanos();
              while (System.nanoTime() - end < 0) {
                ctx.throwIfCancelled();
                Thread.sleep(20);
              }
              return cluster().commands(cluster().primaryOf(SlotHash.getSlot(keys.lease()))).pttl(keys.lease());
            })));
      }
      for (int i = 0; i < digests.size(); i++) {
        LeaseResult<Long> result = results.get(i).get(20, TimeUnit.SECONDS);
        LeaseResult.Completed<Long> done = assertInstanceOf(LeaseResult.Completed.class, result, result::toString);
        assertTrue(done.value() > 0, "still held by the server after three TTLs: " + done.value());
        LeaseKeys keys = leases.keys(PURPOSE, digests.get(i));
        assertEquals(0, cluster().commands(cluster().primaryOf(SlotHash.getSlot(keys.lease()))).exists(keys.lease()),
            "released");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void replicaAck_isAnsweredByTheSlotsOwnPrimary() throws InterruptedException {
    try (RedisLeases leases = leases().releaseSignals(false).replicaAck(1, Duration.ofMillis(300)).build()) {
      Map<Integer, List<String>> byPrimary = resourcesOnEveryPrimary(leases, 1);
      for (List<String> digests : byPrimary.values()) {
        String digest = digests.get(0);
        RedisProcess primary = cluster().primaryOf(slot(leases, digest));
        long waits = waitCalls(primary);
        LeaseHandle handle = acquired(leases, digest, Duration.ofSeconds(5), leases.newAttempt("op"));
        assertEquals(LeaseGuarantee.FENCED, handle.guarantee(), "the slot's replica acknowledged");
        assertEquals(waits + 1, waitCalls(primary), "WAIT ran on the slot's primary");
        handle.release();
      }
      // With the replica of one primary stopped, only that primary's grants go unacknowledged.
      String paused = byPrimary.values().iterator().next().get(0);
      RedisProcess primary = cluster().primaryOf(slot(leases, paused));
      RedisProcess replica = cluster().replicasOf(primary).get(0);
      replica.pause();
      try {
        LeaseHandle handle = acquired(leases, paused, Duration.ofSeconds(5), leases.newAttempt("unacked"));
        assertEquals(LeaseGuarantee.EFFICIENCY_ONLY, handle.guarantee(), "its replica cannot acknowledge");
        handle.release();
        for (List<String> digests : byPrimary.values()) {
          if (!digests.get(0).equals(paused)) {
            LeaseHandle other = acquired(leases, digests.get(0), Duration.ofSeconds(5), leases.newAttempt("acked"));
            assertEquals(LeaseGuarantee.FENCED, other.guarantee(), "another primary's replica acknowledged");
            other.release();
          }
        }
      } finally {
        replica.resume();
      }
      cluster().awaitReady();
    }
  }

  static long waitCalls(RedisProcess node) {
    String stats = cluster().commands(node).info("commandstats");
    int at = stats.indexOf("cmdstat_wait:calls=");
    if (at < 0) {
      return 0;
    }
    String rest = stats.substring(at + "cmdstat_wait:calls=".length());
    return Long.parseLong(rest.substring(0, rest.indexOf(',')));
  }

  @Test
  void slotMigratedWhileHeld_leaseAndFenceMoveTogether_renewalsFollowAskAndMoved() throws Exception {
    try (RedisLeases leases = leases().build(); RedisLeases others = leases().releaseSignals(false).build()) {
      String digest = ResourceDigests.sha256("migrated-" + RESOURCES.incrementAndGet());
      LeaseKeys keys = leases.keys(PURPOSE, digest);
      int slot = SlotHash.getSlot(keys.lease());
      RedisProcess source = cluster().primaryOf(slot);
      RedisProcess target = cluster().nodes().stream()
          .filter(n -> n.port() != source.port() && cluster().commands(n).info("replication").contains("role:master"))
          .findFirst().orElseThrow();
      Duration ttl = Duration.ofMillis(600);
      LeaseAttempt attempt = leases.newAttempt("held");
      LeaseHandle handle = acquired(leases, digest, ttl, attempt);
      List<LeaseWatchdog.LeaseLoss> losses = new CopyOnWriteArrayList<>();
      leases.watchdog().watch(handle, ttl, losses::add);
      String sourceId = cluster().commands(source).clusterMyId();
      String targetId = cluster().commands(target).clusterMyId();

      cluster().commands(target).clusterSetSlotImporting(slot, sourceId);
      cluster().commands(source).clusterSetSlotMigrating(slot, targetId);
      assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(ttl), "still on the source while migrating");
      List<String> inSlot = cluster().commands(source).clusterGetKeysInSlot(slot, 10);
      assertEquals(Set.of(keys.lease(), keys.fence()), Set.copyOf(inSlot), "lease and fence share the slot");
      assertEquals("OK", cluster().commands(source).migrate("127.0.0.1", target.port(), 0, 5000,
          MigrateArgs.Builder.keys(inSlot)));
      // Both keys are on the target, the slot still the source's: the source answers ASK.
      assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(ttl), "renewed on the target after ASK");
      assertInstanceOf(AcquireOutcome.Contended.class, others.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, ttl, others.newAttempt("other"))), "the target holds it");
      assertTrue(assertInstanceOf(InspectOutcome.Held.class,
          leases.port().inspect(new LeaseInspection(PURPOSE, digest, attempt))).holderIsThisAttempt());

      for (RedisProcess node : cluster().nodes()) {
        if (cluster().commands(node).info("replication").contains("role:master")) {
          cluster().commands(node).clusterSetSlotNode(slot, targetId);
        }
      }
      // The slot is the target's now: the source answers MOVED, and lettuce follows it.
      assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(ttl), "renewed on the target after MOVED");
      Thread.sleep(ttl.multipliedBy(3).toMillis()); // let the watchdog renew past three TTLs on the target
      assertEquals(LeaseState.ACTIVE, handle.state());
      assertTrue(losses.isEmpty(), losses.toString());
      assertEquals(attempt.ownership(), cluster().commands(target).get(keys.lease()));
      assertEquals(handle.fencingToken().getAsLong(), Long.parseLong(cluster().commands(target).get(keys.fence())));
      assertEquals(0, cluster().commands(source).clusterCountKeysInSlot(slot), "nothing of the slot left on the source");
      assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
      assertEquals(0, cluster().commands(target).exists(keys.lease()));
      LeaseHandle next = acquired(others, digest, ttl, others.newAttempt("next"));
      assertTrue(next.fencingToken().getAsLong() > handle.fencingToken().getAsLong(), "the moved counter keeps rising");
      assertNotEquals(source.port(), cluster().primaryOf(slot).port());
      next.release();
    }
  }

  /** What a cluster client needs beyond {@link AclIntegrationTests#RULE}; docs/operations.md, "ACL", shows it. */
  static final String CLUSTER_RULE = "+cluster|nodes +cluster|myid +client|setname";

  @Test
  void theReadmeRule_plusTheClusterRule_onEveryNode_runsEveryOperation_withNothingDenied() throws Exception {
    String readme = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "operations.md"));
    assertTrue(readme.contains("add `" + CLUSTER_RULE + "`"), "docs/operations.md shows the cluster's addition this test runs");
    List<String> args = new ArrayList<>(List.of("SETUSER", "leasehold", "reset", "on", ">pw-cluster"));
    args.addAll(List.of(AclIntegrationTests.RULE.replace("billing", "it-cluster").split(" ")));
    args.addAll(List.of(CLUSTER_RULE.split(" ")));
    for (RedisProcess node : cluster().nodes()) {
      cluster().commands(node).dispatch(io.lettuce.core.protocol.CommandType.ACL,
          new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
          new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8).addValues(args));
      cluster().commands(node).aclLogReset();
    }
    io.lettuce.core.RedisURI user = io.lettuce.core.RedisURI.builder(cluster().seedUri())
        .withAuthentication("leasehold", "pw-cluster").build();
    try (RedisLeases leases = RedisLeases.builder(user).cluster().namespace("it-cluster")
        .commandTimeout(Duration.ofSeconds(1)).replicaAck(1, Duration.ofMillis(300)).build()) {
      for (List<String> digests : resourcesOnEveryPrimary(leases, 1).values()) {
        String digest = digests.get(0);
        LeaseAttempt attempt = leases.newAttempt("op");
        LeaseHandle handle = acquired(leases, digest, Duration.ofSeconds(5), attempt);
        assertEquals(LeaseGuarantee.FENCED, handle.guarantee(), "WAIT permitted and acknowledged");
        assertTrue(assertInstanceOf(InspectOutcome.Held.class,
            leases.port().inspect(new LeaseInspection(PURPOSE, digest, attempt))).holderIsThisAttempt());
        assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(Duration.ofSeconds(5)));
        assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
      }
      // The wait loop as that user: a waiter subscribed to the release channel, woken by the release.
      String digest = resourcesOnEveryPrimary(leases, 1).values().iterator().next().get(0);
      LeaseHandle holder = acquired(leases, digest, Duration.ofSeconds(30), leases.newAttempt("holder"));
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        LeaseAttempt waiter = leases.newAttempt("waiter");
        long firstSleeps = leases.releaseSignals().orElseThrow().subscribedWakeups();
        Future<AcquireOutcome> waiting = pool.submit(() -> leases.port().tryAcquire(
            new LeaseRequest(PURPOSE, digest, Duration.ofSeconds(20), Duration.ofSeconds(5), waiter)));
        // Asleep on the channel for its second sleep, not merely subscribed (see above).
        ReleaseSignals signals = leases.releaseSignals().orElseThrow();
        RedisLeasesIntegrationTests.await(() -> signals.subscribedWakeups() > firstSleeps
            && signals.sleepersOn(leases.keys(PURPOSE, digest).releaseChannel()) == 1
            && subscribers(leases, List.of(digest)) == 1, Duration.ofSeconds(5));
        assertInstanceOf(ReleaseOutcome.Released.class, holder.release());
        assertInstanceOf(ReleaseOutcome.Released.class, assertInstanceOf(AcquireOutcome.Acquired.class,
            waiting.get(10, TimeUnit.SECONDS)).handle().release());
        assertEquals(1, signals.signalledWakeups(), "woken by the release signal");
      } finally {
        pool.shutdownNow();
      }
    }
    Set<Object> denied = new HashSet<>();
    for (RedisProcess node : cluster().nodes()) {
      cluster().commands(node).aclLog().forEach(entry -> denied.add(entry.get("object")));
    }
    assertEquals(Set.of(), denied, "no node denied anything");
  }
}
