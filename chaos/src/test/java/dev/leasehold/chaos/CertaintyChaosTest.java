package dev.leasehold.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.testkit.redis.RedisProcess;
import dev.leasehold.testkit.redis.TcpProxy;
import io.lettuce.core.RedisURI;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A directed run for CertaintyIsHonest across the wait loop of {@code tryAcquire}: the first try
 * is applied but its reply is dropped (ambiguous), the connection is then reset and refused, so the
 * remaining tries are never sent (each one provably not applied). The call as a whole must not
 * claim {@code Unavailable}: one of its tries may have been applied, and the sampler shows it was.
 */
@Timeout(60)
class CertaintyChaosTest {
  @Test
  void acquireWaitLoopDoesNotTurnAnAmbiguousTryIntoUnavailable() throws Exception {
    try (RedisProcess redis = RedisProcess.start("chaos-certainty"); TcpProxy proxy = TcpProxy.start("certainty", redis.port())) {
      History h = new History();
      String resource = "acquire-retry-certainty-" + System.currentTimeMillis();
      String digest = dev.leasehold.lease.ResourceDigests.sha256(resource);
      Worker.Plan plan = new Worker.Plan(Duration.ofSeconds(5), Duration.ofMillis(1500), 1, Duration.ZERO,
          Duration.ofMillis(50), 100, g -> false, Duration.ZERO, false);
      ChaosRun.Setup setup = new ChaosRun.Setup("acquire-retry-certainty",
          "tryAcquire(wait 1.5 s): first try applied with its reply dropped, then the connection reset and refused",
          () -> RedisURI.create("redis://127.0.0.1:" + proxy.port()), redis::uri, () -> "redis:" + redis.port(), 1, plan,
          Duration.ofSeconds(5), dev.leasehold.redis.FenceMode.CLOCK_FLOOR, 0, Duration.ofMillis(100), Duration.ofMillis(20),
          false);
      try (Gateways.Opened gateway = Gateways.connect(setup.clientUri().get(), ChaosRun.COMMAND_TIMEOUT);
           Connection connection = Postgres.get().connect()) {
        RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(gateway.gateway()).namespace("chaos")
            .driftBudget(setup.driftBudget()).build();
        Worker w = new Worker("w1", adapter, List.of(new FencedStore(connection)), resource, digest, h, plan, Long.MAX_VALUE);
        try (Sampler sampler = new Sampler(redis.uri(), h, adapter.keys(Worker.PURPOSE, digest), setup.serverLabel(), 10)
            .start().awaitFirst()) {
          // Warm-up, so the scripts are loaded: a dropped NOSCRIPT reply would prove nothing.
          w.release("w1.a0", w.acquire("w1.a0", new LeaseRequest(Worker.PURPOSE, digest, Duration.ZERO, plan.ttl(),
              adapter.newAttempt("w1.a0"))));
          long start = h.now();
          proxy.dropReplies(true);
          // One call, not Worker.acquire (which replays an Indeterminate outcome).
          LeaseRequest request = new LeaseRequest(Worker.PURPOSE, digest, plan.waitTimeout(), plan.ttl(),
              adapter.newAttempt("w1.a1"));
          Thread t = new Thread(() -> {
            long seq = h.invoke("w1", "w1.a1", "acquire");
            AcquireOutcome out = adapter.tryAcquire(request);
            LeaseHandle handle = out instanceof AcquireOutcome.Acquired a ? a.handle()
                : out instanceof AcquireOutcome.ReplayedSameOperation r ? r.handle() : null;
            w.complete(seq, "w1.a1", "acquire", Worker.outcomeName(out), handle, out.toString());
          }, "certainty-acquire");
          t.start();
          StandaloneChaosTest.sleep(400);
          proxy.refuse(true);
          proxy.dropReplies(false);
          h.fault(start, "drop-replies", "replies discarded, then the connection reset");
          long refused = h.now();
          t.join(10_000);
          StandaloneChaosTest.sleep(200);
          proxy.refuse(false);
          h.fault(refused, "refuse", "new connections reset on accept");
        }
      }
      ChaosRun.Result r = ChaosRun.finish(setup, h, resource);
      List<History.Complete> acquires = h.of(History.Complete.class).stream().filter(c -> c.grant().equals("w1.a1")).toList();
      assertEquals(1, acquires.size(), "one tryAcquire call: " + acquires);
      assertTrue(h.of(History.Sample.class).stream().anyMatch(s -> "w1.a1".equals(s.holder())),
          "the first try was not applied; the scenario did not set up what it tests");
      assertEquals("Indeterminate", acquires.get(0).outcome(), "the call may have been applied: " + acquires.get(0));
      assertEquals(0, r.counts().certaintyContradictions(),
          "tryAcquire returned " + acquires.get(0).outcome() + " though one of its tries may have been (and was) applied: "
              + r.counts().findings());
    }
  }
}
