package dev.leasehold.integration;

import static dev.leasehold.docs.MarkdownDocs.assertCompiles;

import dev.leasehold.docs.MarkdownDocs;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The "Spring Integration" section of docs/guide.md: its java block compiles against this module's classpath. */
class LockRegistryDocUnitTests {
  @Test
  void theJavaBlock_compiles() {
    for (MarkdownDocs.Block block : MarkdownDocs.javaBlocks(MarkdownDocs.page("docs/guide.md"), "Spring Integration")) {
      assertCompiles(block, List.of("dev.leasehold.integration.LeaseholdLockRegistry", "java.util.concurrent.TimeUnit"),
          "private final dev.leasehold.redis.RedisLeases leases = null;");
    }
  }
}
