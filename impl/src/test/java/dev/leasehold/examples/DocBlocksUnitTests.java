package dev.leasehold.examples;

import static dev.leasehold.docs.MarkdownDocs.assertCompiles;
import static dev.leasehold.docs.MarkdownDocs.assertShows;
import static dev.leasehold.docs.MarkdownDocs.javaBlocks;
import static dev.leasehold.docs.MarkdownDocs.page;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.docs.MarkdownDocs;
import dev.leasehold.docs.MarkdownDocs.Block;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The java blocks of the pages on impl's types compile against impl's test classpath, and the README's
 * quick start shows {@link ReadmeExample}'s code, which {@code ReadmeExampleIntegrationTests} runs
 * against a real redis-server. And every java block of README.md and docs/ is checked by some test.
 */
class DocBlocksUnitTests {
  /** Every java block, by page and heading, and the test that compiles it (in the module whose classpath has its types). */
  private static final Map<String, String> CHECKED_BY = Map.of(
      "README.md: Quick start", "impl: DocBlocksUnitTests",
      "docs/operations.md: TLS", "impl: DocBlocksUnitTests",
      "docs/guide.md: Fenced writes", "jdbc: FencedWriteDocUnitTests",
      "docs/guide.md: Spring Boot", "spring-boot-starter: SpringBootDocUnitTests",
      "docs/guide.md: ShedLock", "shedlock: ShedLockDocUnitTests",
      "docs/guide.md: Spring Integration", "spring-integration: LockRegistryDocUnitTests",
      "docs/verification.md: Run the property kit in your CI", "model-tests: ConformanceDocUnitTests",
      "docs/black-box.md: How a run works", "peers: BlackBoxDocUnitTests",
      "docs/black-box.md: Writing a port", "peers: BlackBoxDocUnitTests");

  @Test
  void theReadmeQuickStart_compiles_andShowsTheExampleThatRunsAgainstRedis() {
    Block quickStart = javaBlocks(page("README.md"), "Quick start").get(0);
    assertCompiles(quickStart, List.of(), "");
    assertShows(quickStart, Path.of("src/test/java/dev/leasehold/examples/ReadmeExample.java"));
  }

  @Test
  void theTlsBlock_compiles() {
    for (Block block : javaBlocks(page("docs/operations.md"), "TLS")) {
      assertCompiles(block, List.of("dev.leasehold.redis.RedisLeases", "io.lettuce.core.SslOptions", "java.io.File"), "");
    }
  }

  @Test
  void everyJavaBlock_isCheckedByATest() throws IOException {
    List<Path> pages;
    try (Stream<Path> docs = Files.list(page("docs"))) {
      pages = Stream.concat(Stream.of(page("README.md")), docs.filter(p -> p.toString().endsWith(".md"))).collect(Collectors.toList());
    }
    TreeSet<String> blocks = new TreeSet<>();
    for (Path p : pages) {
      MarkdownDocs.blocks(p).stream().filter(b -> b.language().equals("java"))
          .forEach(b -> blocks.add(MarkdownDocs.ROOT.relativize(b.page()).toString().replace('\\', '/') + ": " + b.heading()));
    }
    assertEquals(new TreeMap<>(CHECKED_BY).keySet(), blocks,
        "java blocks (page: heading) vs the ones a test compiles; a new block needs a test in the module whose "
            + "classpath has its types, listed in CHECKED_BY");
  }
}
