package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The test databases for code outside this package (the guide's fenced-write example): a connection, autocommit
 * on, in the tests' own schema of each dialect's database.
 *
 * <p>This interface is threadsafe.
 */
public interface TestDatabases {
  Connection connect() throws SQLException;

  static TestDatabases of(FenceDialect dialect) {
    TestDatabase db = dialect == FenceDialect.POSTGRESQL ? PostgresDatabase.get() : MariaDbDatabase.get();
    return db::connect;
  }
}
