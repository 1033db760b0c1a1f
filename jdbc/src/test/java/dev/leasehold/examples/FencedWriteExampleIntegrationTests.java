package dev.leasehold.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.jdbc.FenceDialect;
import dev.leasehold.jdbc.FenceResult;
import dev.leasehold.jdbc.JdbcFence;
import dev.leasehold.jdbc.TestDatabases;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The "Fenced writes" example of docs/guide.md, run on PostgreSQL and on MariaDB with the shipped DDL: the
 * newer holder's write lands, the paused older holder's is refused, a replay is admitted. And the
 * guide shows this example and the shipped PostgreSQL DDL, so that they cannot drift apart.
 */
class FencedWriteExampleIntegrationTests {
  private static final String CUSTOMER_42 = "sha256:" + "42".repeat(32);
  /** The guide's statement for {@code FencedUpdate}'s token column. */
  private static final String ADD_FENCE_COLUMN = "ALTER TABLE invoice ADD COLUMN fence BIGINT NOT NULL DEFAULT 0";

  @ParameterizedTest
  @EnumSource(FenceDialect.class)
  void theExample_admitsTheNewestHolder_andRefusesAnOlderOne(FenceDialect dialect) throws SQLException {
    try (Connection setup = TestDatabases.of(dialect).connect(); Statement s = setup.createStatement()) {
      s.execute("DROP TABLE IF EXISTS invoice");
      s.execute("DROP TABLE IF EXISTS " + FenceDialect.DEFAULT_TABLE);
      JdbcFence.of(dialect).createTableIfAbsent(setup);
      s.execute("CREATE TABLE invoice (id INT PRIMARY KEY, status VARCHAR(16) NOT NULL)");
      s.execute(ADD_FENCE_COLUMN);
      s.execute("INSERT INTO invoice (id, status) VALUES (42, 'open')");
      try (Connection c = TestDatabases.of(dialect).connect()) {
        FencedWriteExample example = new FencedWriteExample(dialect);
        assertEquals(new FenceResult.Admitted(7), example.markSent(c, CUSTOMER_42, 7));
        assertEquals("sent", status(s));
        s.execute("UPDATE invoice SET status = 'open'");
        assertEquals(new FenceResult.Stale(6, 7), example.markSent(c, CUSTOMER_42, 6));
        assertEquals("open", status(s), "the stale holder's write was not made");
        assertEquals(new FenceResult.Admitted(7), example.markSent(c, CUSTOMER_42, 7), "a replay is admitted");
        assertEquals("sent", status(s));

        s.execute("UPDATE invoice SET status = 'open'");
        assertEquals(new FenceResult.Admitted(9), example.markSentInRow(c, 9));
        assertEquals(new FenceResult.Stale(8, 9), example.markSentInRow(c, 8));
        assertEquals("sent", status(s));
      } finally {
        s.execute("DROP TABLE invoice");
        s.execute("DROP TABLE " + FenceDialect.DEFAULT_TABLE);
      }
    }
  }

  @Test
  void theReadmeShowsThisExample_andTheShippedDdl() throws IOException {
    String readme = normalized(Files.readString(Path.of("../docs/guide.md")));
    String source = Files.readString(Path.of("src/test/java/dev/leasehold/examples/FencedWriteExample.java"));
    String example = source.substring(source.indexOf("// README example: begin") + 24, source.indexOf("  // README example: end"));
    assertTrue(readme.contains(normalized(example)), "docs/guide.md does not show FencedWriteExample's example");
    String ddl = FenceDialect.POSTGRESQL.ddl(FenceDialect.DEFAULT_TABLE);
    assertTrue(readme.contains(normalized(ddl.substring(ddl.indexOf("CREATE TABLE")))), "docs/guide.md does not show the shipped DDL");
    assertTrue(readme.contains(ADD_FENCE_COLUMN + ";"), "docs/guide.md does not show the token column's DDL");
  }

  private static String status(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT status FROM invoice WHERE id = 42")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static String normalized(String text) {
    return text.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n"));
  }
}
