package dev.leasehold.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.jdbc.FenceDialect;
import dev.leasehold.jdbc.FenceResult;
import dev.leasehold.jdbc.JdbcFence;
import dev.leasehold.jdbc.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The "Fenced writes" example of docs/guide.md, run on PostgreSQL and on MariaDB with the shipped DDL: the
 * newer holder's write lands, the paused older holder's is refused, a replay is admitted. That the
 * guide shows this example and the shipped DDL is {@link FencedWriteDocUnitTests}'s.
 */
class FencedWriteExampleIntegrationTests {
  private static final String CUSTOMER_42 = "sha256:" + "42".repeat(32);
  /** The guide's statement for {@code FencedUpdate}'s token column. */
  static final String ADD_FENCE_COLUMN = "ALTER TABLE invoice ADD COLUMN fence BIGINT NOT NULL DEFAULT 0";

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

  private static String status(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT status FROM invoice WHERE id = 42")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
