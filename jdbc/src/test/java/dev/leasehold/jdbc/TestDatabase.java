package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A database the fence tests run on: a loopback service (or an embedded one), inside a schema or
 * database the tests made themselves. Tables are made per test by the tests.
 *
 * <p>Implementations are threadsafe.
 */
interface TestDatabase {
  /** Which server, for messages. */
  String description();

  FenceDialect dialect();

  /** The server's default isolation level, as {@link Connection#getTransactionIsolation()} reports it. */
  int defaultIsolation();

  /** A new connection in the tests' own schema, autocommit on; the caller closes it. */
  Connection connect() throws SQLException;

  /** The column type of a log table's sequence number, assigned in insert order. */
  String autoIncrementKey();

  /** Runs statements on a fresh autocommit connection. */
  default void execute(String... sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String statement : sql) {
        s.execute(statement);
      }
    }
  }
}
