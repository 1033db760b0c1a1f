package dev.leasehold.examples;

import dev.leasehold.jdbc.FenceDialect;
import dev.leasehold.jdbc.FenceResult;
import dev.leasehold.jdbc.FencedUpdate;
import dev.leasehold.jdbc.JdbcFence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * The "Fenced writes" example of docs/guide.md: a write admitted by the fence table, and one guarded by the
 * row's own token column. {@link FencedWriteExampleIntegrationTests} runs it on PostgreSQL and
 * MariaDB and checks that docs/guide.md shows it.
 *
 * <p>This class is immutable and threadsafe; connections are the caller's.
 */
final class FencedWriteExample {
  private final JdbcFence fence;

  FencedWriteExample(FenceDialect dialect) {
    this.fence = JdbcFence.of(dialect);
  }

  // docs example: begin
  // JdbcFence fence = JdbcFence.of(FenceDialect.POSTGRESQL);    // or MARIADB, or FenceDialect.of(connection)
  FenceResult markSent(Connection connection, String resource, long token) throws SQLException {
    connection.setAutoCommit(false);
    FenceResult result = fence.admit(connection, resource, token);   // locks the fence row until commit
    if (result instanceof FenceResult.Admitted) {
      try (PreparedStatement update = connection.prepareStatement("UPDATE invoice SET status = 'sent' WHERE id = ?")) {
        update.setInt(1, 42);
        update.executeUpdate();
      }
      connection.commit();
    } else {
      connection.rollback();                                         // Stale(token, newest): a newer holder wrote
    }
    return result;
  }

  // The same guard on the row's own token column: UPDATE ... WHERE id = 42 AND fence <= token
  FenceResult markSentInRow(Connection connection, long token) throws SQLException {
    connection.setAutoCommit(false);
    FenceResult result = FencedUpdate.of("invoice", "id", "fence")
        .update(connection, 42, token, Map.of("status", "sent"));
    connection.commit();
    return result;
  }
  // docs example: end
}
