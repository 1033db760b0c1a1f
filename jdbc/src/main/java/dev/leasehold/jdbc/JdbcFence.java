package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The effect-side guard: inside the caller's own transaction, admits a write only if its fencing
 * token is not older than the newest one admitted for the resource, and keeps it so until the
 * caller commits. A lease alone cannot stop a paused old holder; this check at the effect can.
 *
 * <pre>{@code
 * connection.setAutoCommit(false);
 * FenceResult fence = JdbcFence.of(FenceDialect.POSTGRESQL).admit(connection, resource, token);
 * if (fence instanceof FenceResult.Admitted) {
 *   ... the caller's writes ...
 *   connection.commit();
 * } else {
 *   connection.rollback();                 // Stale: a newer holder has written
 * }
 * }</pre>
 *
 * <p><b>How it holds.</b> One row per resource in the fence table ({@link FenceDialect#ddl}) holds
 * the newest admitted token. {@link #admit} raises it with one upsert to {@code max(row, token)}
 * ({@code ON CONFLICT DO UPDATE} / {@code ON DUPLICATE KEY UPDATE}) and reads it back with
 * {@code SELECT ... FOR UPDATE}: the token is admitted iff the row now holds it. The upsert
 * write-locks the row until the caller's transaction ends, so a concurrent writer of the same
 * resource waits at its own upsert until then; after a commit it sees the raised row, after a
 * rollback the row as it was (an admitted token of a rolled-back transaction fences nobody).
 * Neither statement reads the transaction's snapshot: an upsert and a locking read both act on
 * the row's newest committed version.
 *
 * <p><b>Isolation.</b> Correct at every level, because only locking statements touch the row.
 * Tested at each database's default, READ COMMITTED on PostgreSQL and REPEATABLE READ on
 * MariaDB (InnoDB), and at the other of the two on each. On PostgreSQL above READ COMMITTED, a
 * row that a concurrent transaction changed after this transaction's snapshot cannot be locked:
 * the statement fails with SQLSTATE 40001 instead (a refusal, never an admission). On MariaDB,
 * two transactions that insert the first row of a resource at once can deadlock (SQLSTATE 40001,
 * error 1213). Both are {@link #isRetryable}: roll back and run the whole transaction again.
 * What is needed: autocommit off (checked), InnoDB on MariaDB/MySQL, and the fence row written
 * only through this class. Every write of the resource must be admitted in the same transaction
 * as the write; a write outside it is not fenced.
 *
 * <p><b>Which resource.</b> Tokens are comparable only within one lease, i.e. one Redis fence
 * counter (namespace, key version, purpose, resource digest). Name that lease: its
 * {@code RedisLeases.keys(purpose, digest).fence()}, or the digest alone when a single purpose
 * guards the resource.
 *
 * <p>This class is immutable and threadsafe; a {@link Connection} is not, so each thread uses its own.
 */
public final class JdbcFence {
  private final FenceDialect dialect;
  private final String table;

  private JdbcFence(FenceDialect dialect, String table) {
    this.dialect = dialect;
    this.table = table;
  }

  /** A fence on the table {@link FenceDialect#DEFAULT_TABLE}. @throws IllegalArgumentException if null */
  public static JdbcFence of(FenceDialect dialect) {
    return of(dialect, FenceDialect.DEFAULT_TABLE);
  }

  /**
   * A fence on {@code table} (created with {@link FenceDialect#ddl(String)}).
   *
   * @throws IllegalArgumentException if the dialect is null or the table not a plain SQL identifier
   */
  public static JdbcFence of(FenceDialect dialect, String table) {
    return new JdbcFence(FenceChecks.notNull("dialect", dialect), FenceChecks.identifier("table", table));
  }

  /** The fence table. */
  public String table() {
    return table;
  }

  /**
   * Creates the fence table unless it exists, with the shipped DDL. Run it on an autocommit
   * connection, or commit after it: on PostgreSQL DDL is part of the transaction.
   */
  public void createTableIfAbsent(Connection connection) throws SQLException {
    try (Statement s = FenceChecks.notNull("connection", connection).createStatement()) {
      s.execute(dialect.ddl(table));
    }
  }

  /**
   * Admits {@code token} for {@code resource} in the connection's current transaction, or refuses
   * it as {@link FenceResult.Stale}. A token equal to the newest (a replay) is admitted.
   *
   * @param connection the caller's connection, autocommit off; the transaction stays open
   * @param resource the lease the token belongs to (see the class doc), 1 to 255 printable ASCII characters
   * @param token the fencing token, at least 1
   * @throws IllegalArgumentException for a bad argument or an autocommit connection, before any statement
   * @throws SQLException from the database; {@link #isRetryable} tells a lost race to run again
   */
  public FenceResult admit(Connection connection, String resource, long token) throws SQLException {
    FenceChecks.resource(resource);
    FenceChecks.token(token);
    FenceChecks.inTransaction(connection);
    try (PreparedStatement raise = connection.prepareStatement(dialect.raise(table))) {
      raise.setString(1, resource);
      raise.setLong(2, token);
      raise.executeUpdate();
    }
    long newest = -1;
    try (PreparedStatement read = connection.prepareStatement(dialect.lockedRead(table))) {
      read.setString(1, resource);
      try (ResultSet rs = read.executeQuery()) {
        if (rs.next()) {
          newest = rs.getLong(1);
        }
      }
    }
    if (newest < token) {
      // Under the lock the raise holds, only something other than this class (a trigger, a
      // manual DELETE in this transaction) can leave the row missing or below the token.
      throw new SQLException("the fence row of a resource is missing or below the token just raised to;"
          + " only JdbcFence may write " + table);
    }
    return newest == token ? new FenceResult.Admitted(token) : new FenceResult.Stale(token, newest);
  }

  /**
   * Whether a failure is a lost race that a new run of the whole transaction may win: SQLSTATE
   * class 40 (serialization failure, deadlock). Roll back first.
   */
  public static boolean isRetryable(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("40")) {
        return true;
      }
    }
    return false;
  }
}
