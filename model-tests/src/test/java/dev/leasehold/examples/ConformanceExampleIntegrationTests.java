package dev.leasehold.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.LeaseConformance;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The "Run the property kit in your CI" example of docs/verification.md, compiled and run by the build: the
 * conformance suite against our own adapter, on the simulated server and on a real redis-server.
 * {@link ConformanceDocUnitTests} checks that the page shows what lies between the markers.
 */
class ConformanceExampleIntegrationTests {
  // docs example: begin
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension("conformance-example");

  @Test
  void myPortConformsOnTheSimulatedServer() {
    LeaseConformance.of(PortFactory.FIXED)        // your factory: (gateway, clocks, drift, ...) -> port
        .name("my-port")
        .chains(500, 50)
        .assertConforms();                         // fails naming the property, the seed, the shrunk chain
  }

  @Test
  void myPortConformsOnARealServer() {
    LeaseConformance.of(PortFactory.FIXED)
        .name("my-port-real")
        .againstRedis(REDIS.uri())                 // or RedisURI.create(System.getenv("REDIS_URL"))
        .waitLoop(false)                          // real time: see docs/verification.md
        .chains(30, 20)
        .assertConforms();
  }
  // docs example: end

  @Test
  void theRealServerRunRanEveryChain() {
    LeaseConformance.Result r = LeaseConformance.of(PortFactory.FIXED).name("real-count")
        .againstRedis(REDIS.uri()).chains(5, 10).seed(1).run();
    assertTrue(r.failure().isEmpty() && r.chainsRun() == 5, () -> "ran " + r.chainsRun() + ": " + r.failure());
  }
}
