package dev.leasehold.testkit.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A {@link ScheduledExecutorService} on a chain's virtual clock, for the watchdog: nothing runs on
 * its own; {@link #runNext} runs the earliest task once the clock has reached it, on the caller's
 * thread, so the watchdog's renewals are steps of the chain, reproducible from its seed. Only the
 * one-shot {@code schedule(Runnable, ...)} the watchdog uses is supported.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
public final class VirtualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final LongSupplier clock;
  private final List<Task> tasks = new ArrayList<>();
  private long sequence;
  private boolean shutdown;

  /** @param clock the clock delays are measured on (the watchdog's monotonic clock) */
  public VirtualScheduler(LongSupplier clock) {
    this.clock = clock;
  }

  /** A scheduled task: due on the clock, ordered by due time, then by scheduling order. */
  private final class Task implements ScheduledFuture<Object> {
    final long due;
    final long order = sequence++;
    final Runnable body;
    /** Handed over with {@link #execute}: to run as soon as possible, not at a planned time. */
    final boolean handedOver;
    boolean cancelled;
    boolean done;

    Task(long due, Runnable body, boolean handedOver) {
      this.due = due;
      this.body = body;
      this.handedOver = handedOver;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - clock.getAsLong(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterrupt) {
      boolean pending = tasks.remove(this);
      cancelled |= pending;
      return pending;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done || cancelled;
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException("the watchdog never waits for a renewal");
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      return get();
    }
  }

  /** When the earliest pending task is due, on the clock; {@link Long#MAX_VALUE} for none. */
  public long nextDue() {
    return tasks.stream().mapToLong(t -> t.due).min().orElse(Long.MAX_VALUE);
  }

  /** Runs the earliest task if the clock has reached it; false if none is due. */
  public boolean runNext() {
    Task next = tasks.stream().min(Comparator.comparingLong((Task t) -> t.due).thenComparingLong(t -> t.order))
        .orElse(null);
    if (next == null || next.due - clock.getAsLong() > 0) {
      return false;
    }
    tasks.remove(next);
    next.done = true;
    next.body.run();
    return true;
  }

  /**
   * Runs, in the order they were handed over, the tasks given to {@link #execute} (the watchdog's
   * loss reports of replies judged off its executor), and those they hand over in turn; tasks
   * planned with a delay wait for {@link #runNext}.
   */
  public void runHandedOver() {
    for (Task next = firstHandedOver(); next != null; next = firstHandedOver()) {
      tasks.remove(next);
      next.done = true;
      next.body.run();
    }
  }

  private Task firstHandedOver() {
    return tasks.stream().filter(t -> t.handedOver).min(Comparator.comparingLong(t -> t.order)).orElse(null);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return add(command, delay, unit, false);
  }

  private Task add(Runnable command, long delay, TimeUnit unit, boolean handedOver) {
    if (shutdown) {
      throw new java.util.concurrent.RejectedExecutionException("shut down");
    }
    Task t = new Task(clock.getAsLong() + Math.max(0, unit.toNanos(delay)), command, handedOver);
    tasks.add(t);
    return t;
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("the watchdog schedules Runnables only");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("the watchdog schedules one renewal at a time");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("the watchdog schedules one renewal at a time");
  }

  @Override
  public void execute(Runnable command) {
    add(command, 0, TimeUnit.NANOSECONDS, true);
  }

  @Override
  public void shutdown() {
    shutdown = true;
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown = true;
    List<Runnable> pending = tasks.stream().map(t -> t.body).toList();
    tasks.clear();
    return pending;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown && tasks.isEmpty();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isTerminated();
  }
}
