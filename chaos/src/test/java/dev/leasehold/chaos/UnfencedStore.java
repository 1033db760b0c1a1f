package dev.leasehold.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The control: the same row update without the token condition, so every write is accepted. It
 * still keeps the highest token seen (and its holder) so a reader can see what was overwritten.
 * The checker proves it can see stale writes on this store.
 *
 * <p>One instance per worker. Not threadsafe.
 */
public final class UnfencedStore implements EffectStore {
  private final Connection connection;

  public UnfencedStore(Connection connection) {
    this.connection = connection;
  }

  @Override
  public String name() {
    return "control";
  }

  @Override
  public void prepare(String resource) throws SQLException {
    FencedStore.prepareRow(connection, name(), resource);
  }

  @Override
  public WriteResult write(String resource, long token, String holder, String value) throws SQLException {
    return FencedStore.inTransaction(connection, name(), resource, prev -> {
      try (PreparedStatement update = connection.prepareStatement(
          "UPDATE " + FencedStore.TABLE + " SET holder = CASE WHEN ? >= fence THEN ? ELSE holder END,"
              + " fence = GREATEST(fence, ?), value = ?, writes = writes + 1 WHERE store = ? AND id = ?")) {
        update.setLong(1, token);
        update.setString(2, holder);
        update.setLong(3, token);
        update.setString(4, value);
        update.setString(5, name());
        update.setString(6, resource);
        return update.executeUpdate() == 1;
      }
    });
  }
}
