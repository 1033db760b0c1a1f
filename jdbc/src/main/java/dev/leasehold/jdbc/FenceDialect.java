package dev.leasehold.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL that differs between databases: the upsert that raises the fence row to at least a
 * token, and the fence table's DDL (shipped as {@code leasehold_fence-postgresql.sql} and
 * {@code leasehold_fence-mariadb.sql} beside this class). Everything else is standard SQL.
 *
 * <p>This enum is immutable.
 */
public enum FenceDialect {
  /** PostgreSQL 9.5 or later ({@code INSERT ... ON CONFLICT}). */
  POSTGRESQL("leasehold_fence-postgresql.sql") {
    @Override
    String raise(String table) {
      return "INSERT INTO " + table + " AS f (resource, token) VALUES (?, ?)"
          + " ON CONFLICT (resource) DO UPDATE SET token = GREATEST(f.token, EXCLUDED.token)";
    }
  },
  /** MariaDB 10.2 or later, and MySQL 8 ({@code INSERT ... ON DUPLICATE KEY UPDATE}, InnoDB). */
  MARIADB("leasehold_fence-mariadb.sql") {
    @Override
    String raise(String table) {
      return "INSERT INTO " + table + " (resource, token) VALUES (?, ?)"
          + " ON DUPLICATE KEY UPDATE token = GREATEST(token, VALUES(token))";
    }
  };

  /** The table name the shipped DDL uses. */
  public static final String DEFAULT_TABLE = "leasehold_fence";

  private final String ddlResource;

  FenceDialect(String ddlResource) {
    this.ddlResource = ddlResource;
  }

  /**
   * Inserts the fence row at {@code token}, or raises an existing one to {@code max(row, token)}.
   * Either way the row is then write-locked by this transaction until it ends; both databases read
   * the row's newest committed version here, whatever the isolation level's snapshot says.
   * Parameters: resource, token.
   */
  abstract String raise(String table);

  /** The newest token, read with the write lock the raise already holds. Parameter: resource. */
  String lockedRead(String table) {
    return "SELECT token FROM " + table + " WHERE resource = ? FOR UPDATE";
  }

  /**
   * The shipped {@code CREATE TABLE IF NOT EXISTS} for the fence table, named {@code table}.
   *
   * @throws IllegalArgumentException if {@code table} is not a plain SQL identifier
   */
  public String ddl(String table) {
    FenceChecks.identifier("table", table);
    try (InputStream in = FenceDialect.class.getResourceAsStream(ddlResource)) {
      if (in == null) {
        throw new IllegalStateException(ddlResource + " is missing from the leasehold-jdbc jar");
      }
      String ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return ddl.replace("CREATE TABLE IF NOT EXISTS " + DEFAULT_TABLE + " ", "CREATE TABLE IF NOT EXISTS " + table + " ");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The dialect of a connection's database, from the product name its driver reports.
   *
   * @throws IllegalArgumentException if the connection is null or the database is neither
   * @throws SQLException if the driver cannot say
   */
  public static FenceDialect of(Connection connection) throws SQLException {
    String product = FenceChecks.notNull("connection", connection).getMetaData().getDatabaseProductName();
    String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
    if (name.contains("postgresql")) {
      return POSTGRESQL;
    }
    if (name.contains("mariadb") || name.contains("mysql")) {
      return MARIADB;
    }
    throw new IllegalArgumentException("no fence dialect for database " + product + "; PostgreSQL, MariaDB and MySQL are supported");
  }
}
