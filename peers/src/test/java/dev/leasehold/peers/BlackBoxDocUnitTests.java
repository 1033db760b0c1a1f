package dev.leasehold.peers;

import dev.leasehold.docs.MarkdownDocs;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The java blocks of docs/black-box.md compile against this module's classpath, and the port the
 * page shows is the Redisson port the peer run uses, line for line.
 */
class BlackBoxDocUnitTests {
  private static final Path PAGE = MarkdownDocs.page("docs/black-box.md");

  @Test
  void theRunBlock_compiles() {
    MarkdownDocs.Block block = MarkdownDocs.javaBlocks(PAGE, "How a run works").get(0);
    MarkdownDocs.assertCompiles(block, List.of("dev.leasehold.testkit.blackbox.*",
        "dev.leasehold.testkit.runner.PropertyViolation", "java.nio.file.Path", "java.time.Duration", "java.util.List",
        "static org.junit.jupiter.api.Assertions.assertTrue"),
        "private final LockLibrary myPort = new dev.leasehold.peers.RedissonPort(true);");
  }

  @Test
  void thePortOnThePage_compiles_andIsTheOneThatRuns() {
    MarkdownDocs.Block block = MarkdownDocs.javaBlocks(PAGE, "Writing a port").get(0);
    MarkdownDocs.assertCompiles(block, List.of("dev.leasehold.testkit.blackbox.*", "java.time.Duration",
        "java.util.Map", "java.util.Optional", "java.util.concurrent.TimeUnit", "org.redisson.Redisson",
        "org.redisson.api.RLock", "org.redisson.api.RedissonClient", "org.redisson.config.Config"), "");
    MarkdownDocs.assertShows(block, Path.of("src/main/java/dev/leasehold/peers/RedissonPort.java"));
  }
}
