package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * A fenced write of the effect row in the caller's open transaction, by one of the module's two
 * guards; the written value is {@code "w" + token}. The scenario tests run with each.
 *
 * <p>Implementations are immutable and threadsafe (connections are the callers').
 */
interface Guard {
  String RESOURCE = "sha256:" + "ab".repeat(32);

  /** Judges the token and, if admitted, writes the effect row; the transaction stays open. */
  FenceResult write(Connection c, long token) throws SQLException;

  /** The newest token the guard holds, read after the fact. */
  long fence() throws SQLException;

  /** The two guards. */
  enum Kind {
    /** {@link JdbcFence#admit} on the fence table, then the caller's own plain UPDATE. */
    FENCE_TABLE,
    /** {@link FencedUpdate} on the effect row's own fence column. */
    TOKEN_COLUMN;

    Guard on(EffectTables tables) {
      return this == FENCE_TABLE ? fenceTable(tables) : tokenColumn(tables);
    }
  }

  private static Guard fenceTable(EffectTables tables) {
    JdbcFence fence = JdbcFence.of(tables.db.dialect(), tables.fence);
    return new Guard() {
      @Override
      public FenceResult write(Connection c, long token) throws SQLException {
        FenceResult result = fence.admit(c, RESOURCE, token);
        if (result.admitted()) {
          try (PreparedStatement ps = c.prepareStatement("UPDATE " + tables.effect + " SET value = ?, token = ? WHERE id = ?")) {
            ps.setString(1, "w" + token);
            ps.setLong(2, token);
            ps.setInt(3, EffectTables.ROW);
            ps.executeUpdate();
          }
        }
        return result;
      }

      @Override
      public long fence() throws SQLException {
        return tables.fenceTableToken(RESOURCE);
      }
    };
  }

  private static Guard tokenColumn(EffectTables tables) {
    FencedUpdate update = FencedUpdate.of(tables.effect, "id", "fence");
    return new Guard() {
      @Override
      public FenceResult write(Connection c, long token) throws SQLException {
        return update.update(c, EffectTables.ROW, token, Map.of("value", "w" + token, "token", token));
      }

      @Override
      public long fence() throws SQLException {
        return tables.row().fence();
      }
    };
  }
}
