package dev.leasehold.model.properties;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.fault.RealBackend;
import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.redis.RedisServer;
import dev.leasehold.testkit.runner.ChainFile;
import dev.leasehold.testkit.runner.PropertyRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same properties against a real redis-server on real time: short TTLs (50-200 ms), 10 ms
 * drift budget, fewer chains. The model allows a few ms of slack where the real clock moved.
 */
class RealRedisLeasePropertiesIntegrationTests {
  private static RedisServer redis;
  private static RealBackend backend;

  @BeforeAll
  static void start() {
    redis = RedisServer.start("model-tests");
    backend = new RealBackend(redis.uri());
  }

  @AfterAll
  static void stop() {
    if (backend != null) {
      backend.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void everyInvariantHoldsOnARealServer() {
    WorldConfig config = WorldConfig.simulated(PortFactory.FIXED).withoutWaitLoop().onRealServer(backend);
    LeaseMachine machine = new LeaseMachine(config);
    PropertyRunner<LeaseWorld> runner = new PropertyRunner<>(machine);
    PropertyRunner.Report report = runner.run(new PropertyRunner.Config(ModelSettings.seed(),
        Integer.getInteger("model.realChains", 40), 20, 60, true));
    System.out.println(report.stats().markdown("fixed adapter, real redis-server", machine.expectedOutcomes()));
    report.failure().ifPresent(f -> ChainFile.write(ModelSettings.target().resolve("model-failures/real.chain"),
        f.chainSeed(), runner.renderSteps(f.shrunk()), f.violation().getMessage()));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
    assertTrue(report.stats().outcomes().containsKey("tryAcquire:Acquired"), "never acquired on the real server");
    assertTrue(report.stats().outcomes().containsKey("renew:Renewed"), "never renewed on the real server");
  }
}
