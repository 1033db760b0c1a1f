package dev.leasehold.chaos;

import dev.leasehold.jdbc.FenceDialect;
import dev.leasehold.jdbc.FenceResult;
import dev.leasehold.jdbc.JdbcFence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The effect point that checks the fencing token with leasehold-jdbc: in the write's transaction,
 * {@link JdbcFence#admit} admits the token unless a newer one was admitted for the resource, and
 * only an admitted write changes the row. This is FencedEffects at the effect point, measured on
 * the module users get rather than on a check of our own.
 *
 * <p>One instance per worker (a JDBC connection is not shared). Not threadsafe.
 */
public final class FencedStore implements EffectStore {
  static final String TABLE = "leasehold_chaos_effect";
  static final JdbcFence FENCE = JdbcFence.of(FenceDialect.POSTGRESQL, "leasehold_chaos_fence");
  private final Connection connection;

  public FencedStore(Connection connection) {
    this.connection = connection;
  }

  @Override
  public String name() {
    return "fenced";
  }

  @Override
  public void prepare(String resource) throws SQLException {
    prepareRow(connection, name(), resource);
  }

  @Override
  public WriteResult write(String resource, long token, String holder, String value) throws SQLException {
    return inTransaction(connection, name(), resource, (prev) -> {
      // The effect row is locked first by every writer, then the fence row: one lock order, no deadlock.
      if (FENCE.admit(connection, resource, token) instanceof FenceResult.Stale) {
        return false;
      }
      try (PreparedStatement update = connection.prepareStatement(
          "UPDATE " + TABLE + " SET fence = ?, holder = ?, value = ?, writes = writes + 1 WHERE store = ? AND id = ?")) {
        update.setLong(1, token);
        update.setString(2, holder);
        update.setString(3, value);
        update.setString(4, name());
        update.setString(5, resource);
        return update.executeUpdate() == 1;
      }
    });
  }

  /** The part of a write that reads the row before changing it. */
  interface Change {
    boolean apply(Prev prev) throws SQLException;
  }

  record Prev(long fence, String holder, long writes) {}

  static void prepareRow(Connection connection, String store, String resource) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(
        "INSERT INTO " + TABLE + " (store, id, fence, holder, value, writes) VALUES (?, ?, 0, NULL, NULL, 0)"
            + " ON CONFLICT (store, id) DO NOTHING")) {
      insert.setString(1, store);
      insert.setString(2, resource);
      insert.executeUpdate();
    }
  }

  static WriteResult inTransaction(Connection connection, String store, String resource, Change change)
      throws SQLException {
    connection.setAutoCommit(false);
    try {
      Prev prev;
      try (PreparedStatement select = connection.prepareStatement(
          "SELECT fence, holder, writes FROM " + TABLE + " WHERE store = ? AND id = ? FOR UPDATE")) {
        select.setString(1, store);
        select.setString(2, resource);
        try (ResultSet rs = select.executeQuery()) {
          if (!rs.next()) {
            throw new SQLException("no row for " + store + "/" + resource + ": prepare() first");
          }
          prev = new Prev(rs.getLong(1), rs.getString(2), rs.getLong(3));
        }
      }
      boolean accepted = change.apply(prev);
      connection.commit();
      return new WriteResult(accepted, accepted ? prev.writes() + 1 : 0, prev.fence(), prev.holder());
    } catch (SQLException | RuntimeException e) {
      try {
        connection.rollback();
      } catch (SQLException ignored) {
        // the original failure matters
      }
      throw e;
    } finally {
      connection.setAutoCommit(true);
    }
  }
}
