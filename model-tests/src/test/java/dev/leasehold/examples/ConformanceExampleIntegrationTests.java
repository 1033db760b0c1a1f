package dev.leasehold.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.LeaseConformance;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.redis.RedisServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The "Run the property kit in your CI" example of docs/verification.md, compiled and run by the build: the
 * conformance suite against our own adapter, on the simulated server and on a real redis-server.
 */
class ConformanceExampleIntegrationTests {
  // README example: begin
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
  // README example: end

  /** docs/verification.md shows this file's example verbatim (indentation aside), so the two cannot drift. */
  @Test
  void theReadmeShowsThisExample() throws IOException {
    String source = Files.readString(Path.of("src/test/java/dev/leasehold/examples/ConformanceExampleIntegrationTests.java"));
    String example = source.substring(source.indexOf("// README example: begin") + 24, source.indexOf("  // README example: end"));
    String readme = Files.readString(Path.of("../docs/verification.md"));
    assertTrue(normalized(readme).contains(normalized(example).strip()), "docs/verification.md does not show the example of this class");
  }

  private static String normalized(String text) {
    return text.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n"));
  }

  @Test
  void theRealServerRunRanEveryChain() {
    LeaseConformance.Result r = LeaseConformance.of(PortFactory.FIXED).name("real-count")
        .againstRedis(REDIS.uri()).chains(5, 10).seed(1).run();
    assertTrue(r.failure().isEmpty() && r.chainsRun() == 5, () -> "ran " + r.chainsRun() + ": " + r.failure());
  }
}
