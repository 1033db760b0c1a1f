package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * MariaDB for the tests: the service on 127.0.0.1:3306 (user root, no password), in the database
 * {@value #DATABASE}, which the tests create if it is missing. Each test makes and drops its own
 * tables. There is no embedded fallback: without the service the tests fail, naming it.
 *
 * <p>This class is threadsafe.
 */
final class MariaDbDatabase implements TestDatabase {
  static final String DATABASE = "leasehold_jdbc_test";
  private static final String SERVER = "jdbc:mariadb://127.0.0.1:3306/";
  // Connector/J 4 asks for TLS by default; the loopback test server has none.
  private static final String OPTIONS = "?user=root&sslMode=disable&connectTimeout=3000&socketTimeout=30000";
  private static MariaDbDatabase instance;

  private final String description;

  private MariaDbDatabase(String description) {
    this.description = description;
  }

  static synchronized MariaDbDatabase get() {
    if (instance == null) {
      try (Connection c = DriverManager.getConnection(SERVER + OPTIONS)) {
        c.createStatement().execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
        instance = new MariaDbDatabase("MariaDB " + c.getMetaData().getDatabaseProductVersion()
            + " at 127.0.0.1:3306, database " + DATABASE);
      } catch (SQLException e) {
        throw new IllegalStateException("no MariaDB at 127.0.0.1:3306 (user root, no password)", e);
      }
    }
    return instance;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public FenceDialect dialect() {
    return FenceDialect.MARIADB;
  }

  @Override
  public int defaultIsolation() {
    return Connection.TRANSACTION_REPEATABLE_READ;
  }

  @Override
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(SERVER + DATABASE + OPTIONS);
  }

  @Override
  public String autoIncrementKey() {
    return "BIGINT AUTO_INCREMENT PRIMARY KEY";
  }
}
