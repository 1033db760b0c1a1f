package dev.leasehold.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What both guards promise, on one database at one isolation level; each subclass names the pair.
 * Every scenario runs with the fence table ({@link JdbcFence}) and with the row's own token column
 * ({@link FencedUpdate}), on real connections; the waiting ones on real threads.
 *
 * <p>On PostgreSQL above READ COMMITTED, a write whose transaction's snapshot predates a newer
 * committed write fails with SQLSTATE 40001 instead of returning Stale: {@link #refusal} accepts
 * that there, and only there, and then checks that the retry is refused as Stale.
 */
abstract class FenceContract {
  /** How long a writer that must wait on a row lock is watched to still be waiting. */
  static final Duration BLOCKED = Duration.ofMillis(400);

  final ExecutorService threads = Executors.newCachedThreadPool();
  EffectTables tables;

  abstract TestDatabase database();

  /** The isolation level this class runs at; when it is the server's default, it is not set, only checked. */
  abstract int isolation();

  @BeforeEach
  void tables() throws SQLException {
    tables = new EffectTables(database());
  }

  @AfterEach
  void drop() throws SQLException {
    threads.shutdownNow();
    tables.close();
  }

  /** A connection at this class's isolation level, autocommit off. */
  Connection open() throws SQLException {
    Connection c = database().connect();
    if (isolation() != database().defaultIsolation()) {
      c.setTransactionIsolation(isolation());
    }
    assertEquals(isolation(), c.getTransactionIsolation(), "isolation level of " + database().description());
    c.setAutoCommit(false);
    return c;
  }

  /** Whether a snapshot older than a committed newer write makes the write fail (40001) instead of answering Stale. */
  boolean snapshotConflictThrows() {
    return database().dialect() == FenceDialect.POSTGRESQL && isolation() >= Connection.TRANSACTION_REPEATABLE_READ;
  }

  @ParameterizedTest
  @EnumSource(Guard.Kind.class)
  void aPausedOldHolder_isRefused_afterANewerHolderWrote(Guard.Kind kind) throws Exception {
    Guard guard = kind.on(tables);
    try (Connection old = open(); Connection newer = open()) {
      assertEquals(new FenceResult.Admitted(5), guard.write(old, 5));
      old.commit();
      // The old holder pauses; its lease expires; the next holder writes with a newer token.
      assertEquals(new FenceResult.Admitted(6), guard.write(newer, 6));
      newer.commit();
      // The old holder wakes up and writes again with its old token.
      assertEquals(new FenceResult.Stale(5, 6), guard.write(old, 5));
      old.commit();
    }
    assertNewestWrite(kind, 6);
  }

  @ParameterizedTest
  @EnumSource(Guard.Kind.class)
  void aPausedOldHolder_whoseTransactionBeganBeforeTheNewerWrite_isRefused(Guard.Kind kind) throws Exception {
    Guard guard = kind.on(tables);
    try (Connection old = open(); Connection newer = open()) {
      guard.write(newer, 4);
      newer.commit();
      // The old holder's transaction reads first: at REPEATABLE READ its snapshot now shows token 4.
      assertEquals("w4", readValue(old));
      assertEquals(new FenceResult.Admitted(6), guard.write(newer, 6));
      newer.commit();
      // At REPEATABLE READ the old holder's snapshot still shows the old write: a check on it would pass.
      assertEquals(isolation() >= Connection.TRANSACTION_REPEATABLE_READ ? "w4" : "w6", readValue(old));
      assertEquals(new FenceResult.Stale(5, 6), refusal(old, () -> guard.write(old, 5)));
      old.commit();
    }
    assertNewestWrite(kind, 6);
  }

  @ParameterizedTest
  @EnumSource(Guard.Kind.class)
  void anAdmittedToken_ofARolledBackTransaction_doesNotFenceLaterWriters(Guard.Kind kind) throws Exception {
    Guard guard = kind.on(tables);
    try (Connection a = open(); Connection b = open()) {
      guard.write(a, 3);
      a.commit();
      assertEquals(new FenceResult.Admitted(9), guard.write(a, 9));
      a.rollback();
      assertEquals(new FenceResult.Admitted(6), guard.write(b, 6));
      b.commit();
    }
    assertNewestWrite(kind, 6);
  }

  @ParameterizedTest
  @EnumSource(Guard.Kind.class)
  void aTokenEqualToTheNewest_aReplay_isAdmitted(Guard.Kind kind) throws Exception {
    Guard guard = kind.on(tables);
    try (Connection a = open()) {
      assertEquals(new FenceResult.Admitted(8), guard.write(a, 8));
      a.commit();
      assertEquals(new FenceResult.Admitted(8), guard.write(a, 8));
      a.commit();
      assertEquals(new FenceResult.Stale(7, 8), guard.write(a, 7));
      a.rollback();
    }
    assertNewestWrite(kind, 8);
  }

  @ParameterizedTest
  @EnumSource(Guard.Kind.class)
  void aWriter_waitsForAnUncommittedNewerAdmission_andIsRefusedOnceItCommits(Guard.Kind kind) throws Exception {
    Guard guard = kind.on(tables);
    try (Connection newer = open(); Connection old = open()) {
      assertEquals(new FenceResult.Admitted(7), guard.write(newer, 7));
      Future<FenceResult> waiting = threads.submit(() -> refusal(old, () -> guard.write(old, 6)));
      assertStillWaiting(waiting);
      newer.commit();
      assertEquals(new FenceResult.Stale(6, 7), waiting.get(10, TimeUnit.SECONDS));
      old.rollback();
    }
    assertNewestWrite(kind, 7);
  }

  @ParameterizedTest
  @EnumSource(Guard.Kind.class)
  void aWriter_waitsForAnUncommittedNewerAdmission_andIsAdmittedOnceItRollsBack(Guard.Kind kind) throws Exception {
    Guard guard = kind.on(tables);
    try (Connection newer = open(); Connection old = open()) {
      guard.write(old, 2);
      old.commit();
      assertEquals(new FenceResult.Admitted(9), guard.write(newer, 9));
      Future<FenceResult> waiting = threads.submit(() -> guard.write(old, 6));
      assertStillWaiting(waiting);
      newer.rollback();
      assertEquals(new FenceResult.Admitted(6), waiting.get(10, TimeUnit.SECONDS));
      old.commit();
    }
    assertNewestWrite(kind, 6);
  }

  @ParameterizedTest
  @EnumSource(Guard.Kind.class)
  void concurrentWriters_withInterleavedTokens_leaveTheNewestWrite_andNoStaleWriteAfterANewerOne(Guard.Kind kind)
      throws Exception {
    ConcurrentWriters.Run run = new ConcurrentWriters(this::open, kind.on(tables), tables.log).run(4, 40);
    System.out.printf("%s, %s, %s: committed %d, stale %d, rolled back %d, retried %d, max in flight %d%n",
        getClass().getSimpleName(), database().description(), kind, run.committed().size(), run.stale().size(),
        run.rolledBack().size(), run.retries(), run.maxInFlight());
    List<Long> logged = tables.loggedTokens();
    for (int i = 1; i < logged.size(); i++) {
      assertTrue(logged.get(i) > logged.get(i - 1), "a write with token " + logged.get(i)
          + " was committed after one with the newer token " + logged.get(i - 1) + ": " + logged);
    }
    assertEquals(run.committed().size(), logged.size(), "every committed admitted write, and only those, logged");
    long newest = run.committed().stream().mapToLong(Long::longValue).max().orElseThrow();
    assertNewestWrite(kind, newest);
    run.stale().forEach(s -> assertTrue(s.newest() <= newest, "refused for a token never committed: " + s));
    // Not a vacuous run: the writers overlapped, tokens were admitted, refused and rolled back.
    assertTrue(run.maxInFlight() >= 2, "writers never overlapped");
    assertTrue(run.committed().size() >= 5 && run.stale().size() >= 1 && run.rolledBack().size() >= 1,
        "committed " + run.committed().size() + ", stale " + run.stale().size() + ", rolled back " + run.rolledBack().size());
    assertEquals(4 * 40, run.committed().size() + run.stale().size() + run.rolledBack().size(), "every token judged once");
  }

  @Test
  void tokensOfOneResource_doNotFenceAnother() throws Exception {
    JdbcFence fence = JdbcFence.of(database().dialect(), tables.fence);
    String other = "sha256:" + "cd".repeat(32);
    try (Connection c = open()) {
      assertEquals(new FenceResult.Admitted(100), fence.admit(c, Guard.RESOURCE, 100));
      assertEquals(new FenceResult.Admitted(5), fence.admit(c, other, 5));
      c.commit();
    }
    assertEquals(100, tables.fenceTableToken(Guard.RESOURCE));
    assertEquals(5, tables.fenceTableToken(other));
  }

  @Test
  void anAutocommitConnection_isRejected_beforeAnyStatement() throws Exception {
    JdbcFence fence = JdbcFence.of(database().dialect(), tables.fence);
    FencedUpdate update = FencedUpdate.of(tables.effect, "id", "fence");
    try (Connection c = database().connect()) {
      assertTrue(c.getAutoCommit());
      assertThrows(IllegalArgumentException.class, () -> fence.admit(c, Guard.RESOURCE, 5));
      assertThrows(IllegalArgumentException.class, () -> update.update(c, EffectTables.ROW, 5, Map.of("value", "x")));
    }
    assertEquals(0, tables.fenceTableToken(Guard.RESOURCE));
    assertEquals(new EffectTables.Row("initial", 0, 0), tables.row());
  }

  @Test
  void theShippedDdl_isIdempotent() throws Exception {
    try (Connection c = database().connect()) {
      JdbcFence.of(database().dialect(), tables.fence).createTableIfAbsent(c);
      assertEquals(database().dialect(), FenceDialect.of(c));
    }
  }

  @Test
  void aFencedUpdate_ofAMissingRow_orANullFence_orADuplicateKey_isAnError_notARefusal() throws Exception {
    String loose = tables.effect + "_loose";
    database().execute("CREATE TABLE " + loose + " (k INT, value VARCHAR(64), fence BIGINT)",
        "INSERT INTO " + loose + " (k, value, fence) VALUES (1, 'a', NULL), (2, 'b', 0), (2, 'c', 0)");
    try (Connection c = open()) {
      FencedUpdate update = FencedUpdate.of(loose, "k", "fence");
      IllegalStateException missing = assertThrows(IllegalStateException.class,
          () -> update.update(c, 99, 5, Map.of("value", "x")));
      assertTrue(missing.getMessage().startsWith("no row of"), missing.getMessage());
      // The table name holds a random schema id, which may contain "99" itself.
      assertFalse(missing.getMessage().replace(loose, "").contains("99"), "the key is not shown");
      c.rollback();
      assertTrue(assertThrows(IllegalStateException.class, () -> update.update(c, 1, 5, Map.of("value", "x")))
          .getMessage().contains("is NULL"));
      c.rollback();
      assertTrue(assertThrows(IllegalStateException.class, () -> update.update(c, 2, 5, Map.of("value", "x")))
          .getMessage().contains("not unique"));
      c.rollback();
    } finally {
      database().execute("DROP TABLE " + loose);
    }
  }

  /**
   * The effect row holds the write made with {@code token}, and the guard's fence is at {@code token}
   * (not at a rolled-back or refused one). The row's fence column moves only with the token column guard.
   */
  private void assertNewestWrite(Guard.Kind kind, long token) throws SQLException {
    assertEquals(new EffectTables.Row("w" + token, token, kind == Guard.Kind.TOKEN_COLUMN ? token : 0), tables.row());
    assertEquals(token, kind.on(tables).fence(), "the guard's fence");
  }

  /** The effect row's value, by a plain (snapshot) read. */
  private String readValue(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT value FROM " + tables.effect + " WHERE id = " + EffectTables.ROW)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** A write that loses to a newer one: Stale, or where {@link #snapshotConflictThrows()} a 40001 and then Stale. */
  FenceResult refusal(Connection c, SqlCall<FenceResult> write) throws SQLException {
    try {
      return write.call();
    } catch (SQLException e) {
      if (!snapshotConflictThrows() || !JdbcFence.isRetryable(e)) {
        throw e;
      }
      c.rollback();
      FenceResult retried = write.call();
      assertInstanceOf(FenceResult.Stale.class, retried, "the retry of a write that lost its race");
      return retried;
    }
  }

  private static void assertStillWaiting(Future<?> future) throws Exception {
    try {
      Object early = future.get(BLOCKED.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("the write did not wait for the row lock of the uncommitted admission: " + early);
    } catch (TimeoutException expected) {
      // still blocked on the row lock, as it must be
    }
  }

  /** A JDBC call. */
  @FunctionalInterface
  interface SqlCall<T> {
    T call() throws SQLException;
  }

  /** Writes a log row in the writer's transaction; used by {@link ConcurrentWriters}. */
  static void log(Connection c, String log, long token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + log + " (token) VALUES (?)")) {
      ps.setLong(1, token);
      ps.executeUpdate();
    }
  }
}
