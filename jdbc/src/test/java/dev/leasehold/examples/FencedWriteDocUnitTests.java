package dev.leasehold.examples;

import static dev.leasehold.docs.MarkdownDocs.assertCompiles;
import static dev.leasehold.docs.MarkdownDocs.assertShows;
import static dev.leasehold.docs.MarkdownDocs.normalized;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.jdbc.FenceDialect;
import dev.leasehold.docs.MarkdownDocs;
import dev.leasehold.docs.MarkdownDocs.Block;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The "Fenced writes" section of docs/guide.md: its java block compiles against jdbc's classpath
 * and shows {@link FencedWriteExample}'s code, which {@link FencedWriteExampleIntegrationTests}
 * runs on PostgreSQL and MariaDB; its sql block shows the shipped DDL and the token column the
 * integration test adds.
 */
class FencedWriteDocUnitTests {
  private static final Path GUIDE = MarkdownDocs.page("docs/guide.md");

  @Test
  void theJavaBlock_compiles_andShowsTheExampleThatRuns() {
    Block block = MarkdownDocs.javaBlocks(GUIDE, "Fenced writes").get(0);
    // The block's first line names the fence it uses; the wrapping class declares it.
    assertCompiles(block, List.of("dev.leasehold.jdbc.*", "java.sql.*", "java.util.Map"),
        "private final JdbcFence fence = JdbcFence.of(FenceDialect.POSTGRESQL);");
    assertShows(block, Path.of("src/test/java/dev/leasehold/examples/FencedWriteExample.java"));
  }

  @Test
  void theSqlBlock_showsTheShippedDdl_andTheTokenColumn() {
    String sql = normalized(MarkdownDocs.blocks(GUIDE).stream()
        .filter(b -> b.language().equals("sql") && b.heading().equals("Fenced writes")).findFirst()
        .orElseThrow(() -> new AssertionError(GUIDE + " has no sql block under \"Fenced writes\"")).code());
    String ddl = FenceDialect.POSTGRESQL.ddl(FenceDialect.DEFAULT_TABLE);
    assertTrue(sql.contains(normalized(ddl.substring(ddl.indexOf("CREATE TABLE")))), "docs/guide.md does not show the shipped DDL");
    assertTrue(sql.contains(FencedWriteExampleIntegrationTests.ADD_FENCE_COLUMN + ";"), "docs/guide.md does not show the token column's DDL");
  }
}
