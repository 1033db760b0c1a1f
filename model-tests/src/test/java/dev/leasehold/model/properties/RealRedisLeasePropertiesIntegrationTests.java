package dev.leasehold.model.properties;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.testkit.fault.Backend;
import dev.leasehold.testkit.fault.RealBackend;
import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.redis.RedisServer;
import dev.leasehold.testkit.runner.ChainFile;
import dev.leasehold.testkit.runner.PropertyRunner;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Random;
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

  /**
   * A loaded machine, made on purpose: half the calls stall up to 80 ms before they reach the
   * server (a descheduled client thread), well past the drift budget, while the chain's clock
   * stays frozen for the step. The checks must judge on the window they measured, not on how fast
   * this thread was: a key that expired, or a deadline that passed, within the lateness measured so
   * far is judged both ways; nothing outside that window is excused.
   */
  @Test
  void everyInvariantHolds_whenTheClientStallsPastTheDriftBudget() {
    Random stalls = new Random(ModelSettings.seed());
    WorldConfig config = WorldConfig.simulated(PortFactory.FIXED).withoutWaitLoop().onRealServer(backend)
        .withBackend(() -> stalling(backend.chain(LeaseWorld.KEYS), stalls), false);
    LeaseMachine machine = new LeaseMachine(config);
    PropertyRunner<LeaseWorld> runner = new PropertyRunner<>(machine);
    PropertyRunner.Report report = runner.run(new PropertyRunner.Config(ModelSettings.seed(),
        Integer.getInteger("model.realChains", 40) * 2, 30, 60, true));
    System.out.println(report.stats().markdown("fixed adapter, real redis-server, stalled calls", machine.expectedOutcomes()));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
    assertTrue(report.stats().outcomes().containsKey("tryAcquire:Acquired"), "never acquired on the real server");
  }

  /** {@code chain} whose gateway sleeps 0-80 ms before half its calls, unseen by the chain's clock. */
  static Backend stalling(Backend chain, Random stalls) {
    LeaseGateway real = chain.gateway();
    LeaseGateway stalled = (LeaseGateway) Proxy.newProxyInstance(LeaseGateway.class.getClassLoader(),
        new Class<?>[] {LeaseGateway.class}, (p, m, args) -> {
          if (m.getDeclaringClass() != Object.class && stalls.nextBoolean()) {
            Thread.sleep(stalls.nextInt(81));
          }
          return invoke(m, real, args);
        });
    return (Backend) Proxy.newProxyInstance(Backend.class.getClassLoader(), new Class<?>[] {Backend.class},
        (p, m, args) -> m.getName().equals("gateway") ? stalled : invoke(m, chain, args));
  }

  private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
