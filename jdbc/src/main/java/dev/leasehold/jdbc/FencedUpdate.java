package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The guard on the caller's own row instead of a fence table: the row carries its newest token in
 * a column ({@code fence BIGINT NOT NULL DEFAULT 0}), and the caller's {@code UPDATE} is admitted
 * only if its token is not older, as {@code UPDATE t SET fence = :token, ... WHERE key = :key AND
 * fence <= :token}. The outcome is the same {@link FenceResult} as {@link JdbcFence#admit}.
 *
 * <pre>{@code
 * FencedUpdate invoices = FencedUpdate.of("invoice", "id", "fence");
 * FenceResult r = invoices.update(connection, invoiceId, token, Map.of("status", "sent"));
 * }</pre>
 *
 * <p><b>How it holds.</b> {@code SELECT fence ... FOR UPDATE} write-locks the row and reads its
 * newest committed version (not the snapshot), then the {@code UPDATE} runs only if the token is
 * not older, still under that lock; the lock lasts until the caller's transaction ends, so a
 * concurrent writer of the row waits, and sees the new fence after a commit or the old one after a
 * rollback. Isolation as in {@link JdbcFence}: correct at every level, tested at READ COMMITTED
 * and REPEATABLE READ on PostgreSQL and MariaDB; on PostgreSQL above READ COMMITTED a row changed
 * after the snapshot fails with SQLSTATE 40001 ({@link JdbcFence#isRetryable}). Autocommit must be
 * off (checked); the caller commits or rolls back. The row must exist: a missing row is a
 * programming error ({@link IllegalStateException}), not a refusal.
 *
 * <p>This class is immutable and threadsafe; a {@link Connection} is not, so each thread uses its own.
 */
public final class FencedUpdate {
  private final String table;
  private final String keyColumn;
  private final String fenceColumn;

  private FencedUpdate(String table, String keyColumn, String fenceColumn) {
    this.table = table;
    this.keyColumn = keyColumn;
    this.fenceColumn = fenceColumn;
  }

  /**
   * A guard on {@code table}, whose rows are found by {@code keyColumn} (unique) and carry their
   * newest token in {@code fenceColumn} (BIGINT NOT NULL).
   *
   * @throws IllegalArgumentException if a name is not a plain SQL identifier, or the two columns are one
   */
  public static FencedUpdate of(String table, String keyColumn, String fenceColumn) {
    FenceChecks.identifier("table", table);
    FenceChecks.identifier("keyColumn", keyColumn);
    FenceChecks.identifier("fenceColumn", fenceColumn);
    if (keyColumn.equalsIgnoreCase(fenceColumn)) {
      throw new IllegalArgumentException("keyColumn and fenceColumn must be two columns");
    }
    return new FencedUpdate(table, keyColumn, fenceColumn);
  }

  /**
   * Sets {@code values} and the fence to {@code token} on the row {@code key}, if the token is not
   * older than the row's fence; else changes nothing and returns {@link FenceResult.Stale}.
   *
   * @param connection the caller's connection, autocommit off; the transaction stays open
   * @param key the row's key, bound with {@code setObject}
   * @param token the fencing token, at least 1
   * @param values column to value, at least one, neither the key nor the fence column; values bound
   *     with {@code setObject} in the map's order
   * @throws IllegalArgumentException for a bad argument or an autocommit connection, before any statement
   * @throws IllegalStateException if no row or more than one has the key, or its fence is NULL
   * @throws SQLException from the database; {@link JdbcFence#isRetryable} tells a lost race to run again
   */
  public FenceResult update(Connection connection, Object key, long token, Map<String, ?> values) throws SQLException {
    FenceChecks.notNull("key", key);
    FenceChecks.token(token);
    Map<String, Object> set = columns(values);
    FenceChecks.inTransaction(connection);
    long fence = lockedFence(connection, key);
    if (fence > token) {
      return new FenceResult.Stale(token, fence);
    }
    StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET ").append(fenceColumn).append(" = ?");
    set.keySet().forEach(column -> sql.append(", ").append(column).append(" = ?"));
    // The fence condition is redundant under the lock; it stays so that the statement alone is safe.
    sql.append(" WHERE ").append(keyColumn).append(" = ? AND ").append(fenceColumn).append(" <= ?");
    try (PreparedStatement update = connection.prepareStatement(sql.toString())) {
      int i = 1;
      update.setLong(i++, token);
      for (Object value : set.values()) {
        update.setObject(i++, value);
      }
      update.setObject(i++, key);
      update.setLong(i, token);
      int rows = update.executeUpdate();
      if (rows != 1) {
        throw new IllegalStateException("the fenced UPDATE of " + table + " changed " + rows + " rows under the row lock;"
            + " something else writes " + fenceColumn);
      }
    }
    return new FenceResult.Admitted(token);
  }

  private long lockedFence(Connection connection, Object key) throws SQLException {
    String sql = "SELECT " + fenceColumn + " FROM " + table + " WHERE " + keyColumn + " = ? FOR UPDATE";
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setObject(1, key);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no row of " + table + " has the key given; insert it (" + fenceColumn
              + " = 0) before fenced updates");
        }
        long fence = rs.getLong(1);
        if (rs.wasNull()) {
          throw new IllegalStateException(fenceColumn + " of " + table + " is NULL; declare it BIGINT NOT NULL DEFAULT 0");
        }
        if (rs.next()) {
          throw new IllegalStateException(keyColumn + " of " + table + " is not unique: the key given matches several rows");
        }
        return fence;
      }
    }
  }

  private Map<String, Object> columns(Map<String, ?> values) {
    FenceChecks.notNull("values", values);
    if (values.isEmpty()) {
      throw new IllegalArgumentException("values must name at least one column to set");
    }
    Map<String, Object> set = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : values.entrySet()) {
      String column = FenceChecks.identifier("a column of values", e.getKey());
      if (column.equalsIgnoreCase(keyColumn) || column.equalsIgnoreCase(fenceColumn)) {
        throw new IllegalArgumentException("values must not set the key or the fence column; the fence is set to the token");
      }
      set.put(column, e.getValue());
    }
    return set;
  }
}
