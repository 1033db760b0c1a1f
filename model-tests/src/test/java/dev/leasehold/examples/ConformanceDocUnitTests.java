package dev.leasehold.examples;

import dev.leasehold.docs.MarkdownDocs;
import dev.leasehold.docs.MarkdownDocs.Block;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The "Run the property kit in your CI" block of docs/verification.md compiles against the kit's
 * classpath and shows the example {@link ConformanceExampleIntegrationTests} runs.
 */
class ConformanceDocUnitTests {
  @Test
  void theBlock_compiles_andShowsTheExampleThatRuns() {
    Block block = MarkdownDocs.javaBlocks(MarkdownDocs.page("docs/verification.md"), "Run the property kit in your CI").get(0);
    MarkdownDocs.assertCompiles(block, List.of("dev.leasehold.testkit.LeaseConformance", "dev.leasehold.testkit.lease.PortFactory",
        "dev.leasehold.testkit.redis.RedisServerExtension", "org.junit.jupiter.api.Test",
        "org.junit.jupiter.api.extension.RegisterExtension"), "");
    MarkdownDocs.assertShows(block, Path.of("src/test/java/dev/leasehold/examples/ConformanceExampleIntegrationTests.java"));
  }
}
