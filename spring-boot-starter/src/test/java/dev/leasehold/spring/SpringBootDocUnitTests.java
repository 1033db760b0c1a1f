package dev.leasehold.spring;

import static dev.leasehold.docs.MarkdownDocs.normalized;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.docs.MarkdownDocs;
import dev.leasehold.docs.MarkdownDocs.Block;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The "Spring Boot" section of docs/guide.md: its java block compiles against the starter's classpath
 * and shows {@link InvoiceRun}, and its properties are {@code readme-example.properties};
 * {@link LeaseholdSpringApplicationIntegrationTests} runs both against a real redis-server.
 */
class SpringBootDocUnitTests {
  private static final Path GUIDE = MarkdownDocs.page("docs/guide.md");

  @Test
  void theJavaBlock_compiles_andShowsInvoiceRun() {
    Block block = MarkdownDocs.javaBlocks(GUIDE, "Spring Boot").get(0);
    MarkdownDocs.assertCompiles(block, List.of("dev.leasehold.lease.*", "dev.leasehold.redis.RedisLeases",
        "java.time.Duration", "org.springframework.stereotype.Component"), "");
    MarkdownDocs.assertShows(block, Path.of("src/test/java/dev/leasehold/spring/InvoiceRun.java"));
  }

  @Test
  void thePropertiesBlock_isTheFileTheApplicationRuns() {
    String shown = MarkdownDocs.blocks(GUIDE).stream()
        .filter(b -> b.language().equals("properties") && b.heading().equals("Spring Boot"))
        .map(b -> normalized(b.code())).collect(Collectors.joining("\n"));
    String properties = MarkdownDocs.read(Path.of("src/test/resources/readme-example.properties"));
    assertThat(shown).as("docs/guide.md shows readme-example.properties")
        .isEqualTo(normalized(properties.lines().filter(l -> !l.startsWith("#")).collect(Collectors.joining("\n"))));
  }
}
