package dev.leasehold.shedlock;

import static dev.leasehold.docs.MarkdownDocs.assertCompiles;

import dev.leasehold.docs.MarkdownDocs;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The "ShedLock" section of docs/guide.md: its java block compiles against this module's classpath. */
class ShedLockDocUnitTests {
  @Test
  void theJavaBlock_compiles() {
    for (MarkdownDocs.Block block : MarkdownDocs.javaBlocks(MarkdownDocs.page("docs/guide.md"), "ShedLock")) {
      assertCompiles(block, List.of("dev.leasehold.redis.RedisLeases", "dev.leasehold.shedlock.LeaseholdLockProvider",
          "net.javacrumbs.shedlock.core.LockProvider"), "");
    }
  }
}
