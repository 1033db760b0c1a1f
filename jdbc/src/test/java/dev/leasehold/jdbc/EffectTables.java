package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * One test's own tables, with fresh names: a fence table, an effect table with the one row the
 * writers fight over (id 1: value, the token it was written with, and a fence column), and a log
 * that gets a row per committed admitted write, numbered in insert order. Dropped on close.
 *
 * <p>Not threadsafe to close; the reads open their own connections.
 */
final class EffectTables implements AutoCloseable {
  static final int ROW = 1;

  final TestDatabase db;
  final String fence;
  final String effect;
  final String log;

  EffectTables(TestDatabase db) throws SQLException {
    this.db = db;
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    this.fence = "fence_" + suffix;
    this.effect = "effect_" + suffix;
    this.log = "effect_log_" + suffix;
    try (Connection c = db.connect()) {
      JdbcFence.of(db.dialect(), fence).createTableIfAbsent(c);
    }
    db.execute(
        "CREATE TABLE " + effect + " (id INT PRIMARY KEY, value VARCHAR(64), token BIGINT NOT NULL DEFAULT 0,"
            + " fence BIGINT NOT NULL DEFAULT 0)",
        "INSERT INTO " + effect + " (id, value) VALUES (" + ROW + ", 'initial')",
        "CREATE TABLE " + log + " (seq " + db.autoIncrementKey() + ", token BIGINT NOT NULL)");
  }

  /** The value of the effect row, the token it was written with, and its fence column. */
  record Row(String value, long token, long fence) {}

  Row row() throws SQLException {
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT value, token, fence FROM " + effect + " WHERE id = " + ROW)) {
      rs.next();
      return new Row(rs.getString(1), rs.getLong(2), rs.getLong(3));
    }
  }

  /** The fence table's token for {@code resource}, 0 when it has no row. */
  long fenceTableToken(String resource) throws SQLException {
    try (Connection c = db.connect();
        var ps = c.prepareStatement("SELECT token FROM " + fence + " WHERE resource = ?")) {
      ps.setString(1, resource);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /** The tokens of committed admitted writes, in the order they were made. */
  List<Long> loggedTokens() throws SQLException {
    List<Long> tokens = new ArrayList<>();
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT token FROM " + log + " ORDER BY seq")) {
      while (rs.next()) {
        tokens.add(rs.getLong(1));
      }
    }
    return tokens;
  }

  @Override
  public void close() throws SQLException {
    db.execute("DROP TABLE IF EXISTS " + fence, "DROP TABLE IF EXISTS " + effect, "DROP TABLE IF EXISTS " + log);
  }
}
