package dev.leasehold.testkit.fault;

import dev.leasehold.testkit.runner.PropertyViolation;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.concurrent.Executors;

/**
 * Two calls of one step on two real threads (lanes 0 and 1), of which only one runs at a time: a
 * lane stops at each of its gateway's points ({@link FaultyGateway} calls {@link #point}: the send,
 * the server's step and the reply) until the schedule lets it pass. First lane 0 runs up to its
 * first point, then lane 1 (or the other way round: what each does before its send, such as
 * registering a release in the attempt's ledger, happens in that order); then the schedule's six entries say, in order, which lane passes its
 * next point (and runs up to the one after, or to its end). After every move the controller runs
 * the check it was given, with both lanes stopped. Everything follows from the schedule, so a step
 * replays identically.
 *
 * <p>A lane that blocks on a lock the stopped lane holds (an adapter that holds a lock across its
 * I/O) is reported as a violation, not waited for.
 *
 * <p>This class is threadsafe: the controller and the lanes meet on its monitor.
 */
public final class Interleaving {
  /** How many schedules {@link #order} knows: the ways to interleave two sequences of three points. */
  public static final int SCHEDULES = 20;
  /** How many runs {@link #run} knows: each schedule with lane 0, then with lane 1, reaching its first point first. */
  public static final int RUNS = 2 * SCHEDULES;
  private static final long TIMEOUT_NANOS = 10_000_000_000L;
  private static final ThreadLocal<Interleaving> CURRENT = new ThreadLocal<>();
  private static final ThreadLocal<Integer> LANE = new ThreadLocal<>();
  private static final ExecutorService LANES = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "interleaving-lane");
    t.setDaemon(true);
    return t;
  });

  private final Thread[] threads = new Thread[2];
  private final boolean[] done = new boolean[2];
  private final List<String> points = new ArrayList<>();
  /** The lane allowed to run, or -1 while the controller has the turn. */
  private int turn = -1;
  /** After a failure every lane runs freely to its end. */
  private boolean abandoned;

  private Interleaving() {}

  /** Schedule {@code index} (0..19): which lane passes each of the six points; 0 is lane 0's three points first. */
  public static List<Integer> order(int index) {
    List<Integer> out = new ArrayList<>();
    int n = 0;
    for (int a = 0; a < 6; a++) {
      for (int b = a + 1; b < 6; b++) {
        for (int c = b + 1; c < 6; c++) {
          if (n++ == index) {
            for (int i = 0; i < 6; i++) {
              out.add(i == a || i == b || i == c ? 0 : 1);
            }
            return out;
          }
        }
      }
    }
    throw new IllegalArgumentException("no schedule " + index);
  }

  /**
   * What a run did: each lane's result, and the points in the order the lanes reached them, each
   * {@code lane:kind:point} (the gateway's send, server and reply points) or {@code lane:end}
   * (the lane's call returned). Trace validation writes a concurrent step from these.
   */
  public record Ran<T>(List<T> results, List<String> points) {
    public Ran {
      results = List.copyOf(results);
      points = List.copyOf(points);
    }
  }

  /**
   * Runs {@code lane0} and {@code lane1} interleaved by run {@code index} (0..39: schedule
   * {@code index % 20}, lane {@code index / 20} first to its first point), running
   * {@code check} (given the points reached so far) at every stop. An exception of a lane is thrown here.
   */
  public static <T> Ran<T> run(Callable<T> lane0, Callable<T> lane1, int index, Consumer<List<String>> check) {
    Interleaving i = new Interleaving();
    List<T> results = i.go(List.of(lane0, lane1), index / SCHEDULES, order(index % SCHEDULES), check);
    return new Ran<>(results, i.points());
  }

  /**
   * A schedule parameter for a generated step: 0 the sequential form, else 1 + a run index (see {@link #run}).
   * Half the time one of the overlapping shapes of the spec's races (lane 0's server step before
   * lane 1's, and lane 0's reply after lane 1's), else any.
   */
  public static long generate(SplittableRandom r) {
    if (r.nextBoolean()) {
      List<Integer> overlapping = new ArrayList<>();
      for (int i = 0; i < SCHEDULES; i++) {
        List<Integer> o = order(i);
        if (o.lastIndexOf(0) == 5 && nth(o, 0, 1) < nth(o, 1, 1)) {
          overlapping.add(i);
        }
      }
      return 1 + overlapping.get(r.nextInt(overlapping.size())) + (r.nextBoolean() ? SCHEDULES : 0);
    }
    return r.nextLong(0, RUNS + 1);
  }

  private static int nth(List<Integer> order, int lane, int n) {
    int seen = 0;
    for (int i = 0; i < order.size(); i++) {
      if (order.get(i) == lane && seen++ == n) {
        return i;
      }
    }
    return -1;
  }

  /** The points the lanes reached so far, in order, e.g. {@code 0:renew:send}, {@code 1:end}. */
  public synchronized List<String> points() {
    return List.copyOf(points);
  }

  /** Called by the gateway on whichever thread makes a call; a lane stops here until its turn. */
  static void point(String name) {
    Interleaving i = CURRENT.get();
    if (i != null) {
      i.stop(LANE.get(), name);
    }
  }

  private synchronized void stop(int lane, String name) {
    points.add(lane + ":" + name);
    turn = -1;
    notifyAll();
    awaitTurn(lane);
  }

  private synchronized void awaitTurn(int lane) {
    while (turn != lane && !abandoned) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("lane " + lane + " interrupted", e);
      }
    }
  }

  private <T> List<T> go(List<Callable<T>> lanes, int first, List<Integer> order, Consumer<List<String>> check) {
    List<java.util.concurrent.Future<T>> futures = new ArrayList<>();
    for (int l = 0; l < 2; l++) {
      int lane = l;
      Callable<T> body = lanes.get(l);
      futures.add(LANES.submit(() -> {
        synchronized (this) {
          threads[lane] = Thread.currentThread();
        }
        CURRENT.set(this);
        LANE.set(lane);
        try {
          awaitTurn(lane);
          return body.call();
        } finally {
          CURRENT.remove();
          LANE.remove();
          synchronized (this) {
            points.add(lane + ":end");
            done[lane] = true;
            turn = -1;
            notifyAll();
          }
        }
      }));
    }
    try {
      move(first);
      move(1 - first);
      check.accept(points());
      for (int lane : order) {
        if (!isDone(lane)) {
          move(lane);
          check.accept(points());
        }
      }
      // A lane with more gateway calls than three points (none of ours) runs on to its end.
      for (int lane = 0; lane < 2; lane++) {
        while (!isDone(lane)) {
          move(lane);
        }
      }
    } finally {
      synchronized (this) {
        abandoned = true;
        notifyAll();
      }
    }
    List<T> results = new ArrayList<>();
    for (java.util.concurrent.Future<T> f : futures) {
      try {
        results.add(f.get(10, java.util.concurrent.TimeUnit.SECONDS));
      } catch (java.util.concurrent.TimeoutException e) {
        throw new PropertyViolation("LaneBlocked", "a lane did not end within 10 s; points passed: " + points());
      } catch (java.util.concurrent.ExecutionException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw new IllegalStateException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    return results;
  }

  /** Whether {@code t} is blocked entering a monitor other than {@code monitor}'s (read from the JVM). */
  static boolean blockedElsewhere(Thread t, Object monitor) {
    if (t == null || t.getState() != Thread.State.BLOCKED) {
      return false;
    }
    ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(t.getId());
    LockInfo lock = info == null ? null : info.getLockInfo();
    // Unblocked between the two reads: not blocked now.
    return lock != null && info.getThreadState() == Thread.State.BLOCKED
        && lock.getIdentityHashCode() != System.identityHashCode(monitor);
  }

  private synchronized boolean isDone(int lane) {
    return done[lane];
  }

  /** Lets {@code lane} run until it stops at its next point or ends. */
  private synchronized void move(int lane) {
    turn = lane;
    notifyAll();
    long deadline = System.nanoTime() + TIMEOUT_NANOS;
    int blocked = 0;
    while (turn == lane && !done[lane]) {
      // Blocked for 50 waits on another lock than this monitor is a lock the stopped lane holds. On
      // this monitor it is only the lane taking it back, which a loaded machine may delay for long.
      blocked = blockedElsewhere(threads[lane], this) ? blocked + 1 : 0;
      if (blocked >= 50) {
        throw new PropertyViolation("LaneBlocked", "lane " + lane + " blocked on a lock while the other lane was"
            + " stopped at a gateway point (a lock held across I/O); points passed: " + points);
      }
      if (System.nanoTime() - deadline > 0) {
        throw new PropertyViolation("LaneBlocked", "lane " + lane + " neither reached a point nor ended within 10 s;"
            + " points passed: " + points);
      }
      try {
        wait(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }
}
