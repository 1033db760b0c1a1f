package dev.leasehold.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bad input is refused before any statement, without showing it; the rest of the pure logic. */
class JdbcFenceUnitTests {
  private static final String DIGEST = "sha256:" + "ab".repeat(32);
  private final List<String> calls = new ArrayList<>();

  /** A connection that records every call and fails any that would send a statement. */
  private Connection connection(boolean autoCommit) {
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          calls.add(method.getName());
          if (method.getName().equals("getAutoCommit")) {
            return autoCommit;
          }
          throw new AssertionError("no statement may be sent for bad input, but " + method.getName() + " was called");
        });
  }

  private void assertRejectedBeforeIo(Executable call, String secret) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    if (secret != null) {
      assertFalse(e.getMessage().contains(secret), "the message shows the value: " + e.getMessage());
    }
    assertTrue(calls.stream().allMatch("getAutoCommit"::equals), "calls before the refusal: " + calls);
  }

  @Test
  void admit_refusesBadInput_beforeAnyStatement() {
    JdbcFence fence = JdbcFence.of(FenceDialect.POSTGRESQL);
    Connection inTx = connection(false);
    assertRejectedBeforeIo(() -> fence.admit(inTx, null, 1), null);
    assertRejectedBeforeIo(() -> fence.admit(inTx, "", 1), null);
    assertRejectedBeforeIo(() -> fence.admit(inTx, "customer 42 secret", 1), "secret");
    assertRejectedBeforeIo(() -> fence.admit(inTx, "x".repeat(256), 1), "xxxx");
    assertRejectedBeforeIo(() -> fence.admit(inTx, "kund\u00e9", 1), "kund");
    assertRejectedBeforeIo(() -> fence.admit(inTx, DIGEST, 0), null);
    assertRejectedBeforeIo(() -> fence.admit(inTx, DIGEST, -7), null);
    assertRejectedBeforeIo(() -> fence.admit(null, DIGEST, 1), null);
    assertTrue(calls.isEmpty(), "the connection was touched: " + calls);
    assertRejectedBeforeIo(() -> fence.admit(connection(true), DIGEST, 1), null);
    assertEquals(List.of("getAutoCommit"), calls);
  }

  @Test
  void fencedUpdate_refusesBadInput_beforeAnyStatement() {
    FencedUpdate update = FencedUpdate.of("invoice", "id", "fence");
    Connection inTx = connection(false);
    assertRejectedBeforeIo(() -> update.update(inTx, null, 1, Map.of("status", "x")), null);
    assertRejectedBeforeIo(() -> update.update(inTx, 1, 0, Map.of("status", "x")), null);
    assertRejectedBeforeIo(() -> update.update(inTx, 1, 1, Map.of()), null);
    assertRejectedBeforeIo(() -> update.update(inTx, 1, 1, null), null);
    assertRejectedBeforeIo(() -> update.update(inTx, 1, 1, Map.of("fence", 9)), null);
    assertRejectedBeforeIo(() -> update.update(inTx, 1, 1, Map.of("ID", 9)), null);
    assertRejectedBeforeIo(() -> update.update(inTx, 1, 1, Map.of("status = 'x'; DROP TABLE invoice; --", 1)), "DROP");
    Map<String, Object> nullColumn = new LinkedHashMap<>();
    nullColumn.put(null, 1);
    assertRejectedBeforeIo(() -> update.update(inTx, 1, 1, nullColumn), null);
    assertTrue(calls.isEmpty(), "the connection was touched: " + calls);
    assertRejectedBeforeIo(() -> update.update(connection(true), 1, 1, Map.of("status", "x")), null);
    assertEquals(List.of("getAutoCommit"), calls);
  }

  @Test
  void tableAndColumnNames_areCheckedIdentifiers() {
    for (String bad : new String[] {null, "", "1table", "a-b", "a b", "a.b.c", "t;DROP", "\"quoted\"", "x".repeat(64)}) {
      assertThrows(IllegalArgumentException.class, () -> JdbcFence.of(FenceDialect.MARIADB, bad), String.valueOf(bad));
      assertThrows(IllegalArgumentException.class, () -> FencedUpdate.of(bad, "id", "fence"), String.valueOf(bad));
      assertThrows(IllegalArgumentException.class, () -> FencedUpdate.of("t", bad, "fence"), String.valueOf(bad));
      assertThrows(IllegalArgumentException.class, () -> FencedUpdate.of("t", "id", bad), String.valueOf(bad));
    }
    assertThrows(IllegalArgumentException.class, () -> FencedUpdate.of("t", "fence", "FENCE"));
    assertThrows(IllegalArgumentException.class, () -> JdbcFence.of(null));
    assertEquals("billing.leasehold_fence", JdbcFence.of(FenceDialect.POSTGRESQL, "billing.leasehold_fence").table());
    assertEquals(FenceDialect.DEFAULT_TABLE, JdbcFence.of(FenceDialect.POSTGRESQL).table());
  }

  @Test
  void stale_isAlwaysBelowTheNewest() {
    assertThrows(IllegalArgumentException.class, () -> new FenceResult.Stale(5, 5));
    assertThrows(IllegalArgumentException.class, () -> new FenceResult.Stale(6, 5));
    assertFalse(new FenceResult.Stale(5, 6).admitted());
    assertTrue(new FenceResult.Admitted(5).admitted());
  }

  @Test
  void theShippedDdl_namesTheTableAsked() {
    for (FenceDialect dialect : FenceDialect.values()) {
      String ddl = dialect.ddl("billing.fence");
      assertTrue(ddl.contains("CREATE TABLE IF NOT EXISTS billing.fence ("), ddl);
      assertFalse(ddl.contains("CREATE TABLE IF NOT EXISTS leasehold_fence"), ddl);
      assertTrue(dialect.ddl(FenceDialect.DEFAULT_TABLE).contains("CREATE TABLE IF NOT EXISTS leasehold_fence ("));
    }
    assertThrows(IllegalArgumentException.class, () -> FenceDialect.MARIADB.ddl("t; DROP TABLE x"));
  }

  @Test
  void theDialect_followsTheProductName() throws SQLException {
    assertEquals(FenceDialect.POSTGRESQL, FenceDialect.of(product("PostgreSQL")));
    assertEquals(FenceDialect.MARIADB, FenceDialect.of(product("MariaDB")));
    assertEquals(FenceDialect.MARIADB, FenceDialect.of(product("MySQL")));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FenceDialect.of(product("SQLite")));
    assertTrue(e.getMessage().contains("SQLite"));
    assertThrows(IllegalArgumentException.class, () -> FenceDialect.of(null));
  }

  @Test
  void lostRaces_areRetryable_otherFailuresAreNot() {
    assertTrue(JdbcFence.isRetryable(new SQLException("serialization failure", "40001")));
    assertTrue(JdbcFence.isRetryable(new SQLTransactionRollbackException("deadlock", "40P01")));
    assertTrue(JdbcFence.isRetryable(new SQLException("wrapped", "HY000", new SQLException("deadlock", "40001"))));
    assertFalse(JdbcFence.isRetryable(new SQLException("unique violation", "23505")));
    assertFalse(JdbcFence.isRetryable(new SQLException("no state")));
  }

  private static Connection product(String name) {
    DatabaseMetaData meta = (DatabaseMetaData) Proxy.newProxyInstance(JdbcFenceUnitTests.class.getClassLoader(),
        new Class<?>[] {DatabaseMetaData.class}, (p, m, a) -> {
          if (m.getName().equals("getDatabaseProductName")) {
            return name;
          }
          throw new AssertionError(m.getName());
        });
    return (Connection) Proxy.newProxyInstance(JdbcFenceUnitTests.class.getClassLoader(), new Class<?>[] {Connection.class},
        (p, m, a) -> {
          if (m.getName().equals("getMetaData")) {
            return meta;
          }
          throw new AssertionError(m.getName());
        });
  }
}
