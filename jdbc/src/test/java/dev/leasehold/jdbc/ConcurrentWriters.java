package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writers on real threads, each with its own connection, writing one row through a {@link Guard}
 * with interleaved tokens: writer {@code w} of {@code n} uses {@code w+1, w+1+n, w+1+2n, ...}, with
 * random pauses, so writers overtake each other and a slow one comes back with an old token. An
 * admitted write logs its token in its transaction and holds its locks a moment before it commits,
 * or, about one in eight, rolls back. A lost race (SQLSTATE 40) is retried with the same token in
 * a new transaction.
 *
 * <p>Not threadsafe: one {@link #run} at a time; the run's own threads share only concurrent lists.
 */
final class ConcurrentWriters {
  private static final int MAX_RETRIES = 200;

  /** What one run saw: tokens committed, rolled back after admission, and refusals. */
  record Run(List<Long> committed, List<Long> rolledBack, List<FenceResult.Stale> stale, int maxInFlight, int retries) {}

  /** Opens a connection at the test's isolation level, autocommit off. */
  interface Connections {
    Connection open() throws SQLException;
  }

  private final Connections connections;
  private final Guard guard;
  private final String log;
  private final List<Long> committed = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> rolledBack = Collections.synchronizedList(new ArrayList<>());
  private final List<FenceResult.Stale> stale = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private final AtomicInteger retries = new AtomicInteger();

  ConcurrentWriters(Connections connections, Guard guard, String log) {
    this.connections = connections;
    this.guard = guard;
    this.log = log;
  }

  Run run(int writers, int tokensEach) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      done.add(pool.submit(() -> {
        start.await();
        write(writer, writers, tokensEach);
        return null;
      }));
    }
    start.countDown();
    try {
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    return new Run(List.copyOf(committed), List.copyOf(rolledBack), List.copyOf(stale), maxInFlight.get(), retries.get());
  }

  private void write(int writer, int writers, int tokensEach) throws Exception {
    Random random = new Random(20261218L + writer);
    try (Connection c = connections.open()) {
      for (int i = 0; i < tokensEach; i++) {
        long token = writer + 1 + (long) i * writers;
        Thread.sleep(random.nextInt(4));
        boolean rollBack = random.nextInt(8) == 0;
        int hold = random.nextInt(3);
        for (int attempt = 0; ; attempt++) {
          try {
            once(c, token, rollBack, hold);
            break;
          } catch (SQLException e) {
            c.rollback();
            if (!JdbcFence.isRetryable(e) || attempt >= MAX_RETRIES) {
              throw e;
            }
            retries.incrementAndGet();
          }
        }
      }
    }
  }

  private void once(Connection c, long token, boolean rollBack, int holdMillis) throws Exception {
    maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    try {
      FenceResult result = guard.write(c, token);
      if (result instanceof FenceResult.Stale s) {
        c.rollback();
        stale.add(s);
        return;
      }
      FenceContract.log(c, log, token);
      Thread.sleep(holdMillis);
      if (rollBack) {
        c.rollback();
        rolledBack.add(token);
      } else {
        c.commit();
        committed.add(token);
      }
    } finally {
      inFlight.decrementAndGet();
    }
  }
}
