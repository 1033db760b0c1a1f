package dev.leasehold.lease;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The watchdog's one timing structure: every watched lease's next renewal, with one task
 * scheduled on the executor for the earliest latest instant ({@code dueAt}) among them. When it
 * runs, it sends every renewal whose window has opened ({@code earliest} passed): the one that is
 * due and, with it, those due soon. They go out in one burst, which a gateway may send in one
 * round trip, and since their next renewals come due together too they keep renewing together. No
 * renewal is sent after its latest instant for the queue's sake, only for the executor's.
 *
 * <p>This class is threadsafe.
 */
final class RenewalQueue {
  /** How much earlier than due a renewal may go with others: at most 1 s (and a quarter of its interval). */
  static final long MAX_EARLY_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * One queued renewal. It sits in both heaps; once taken from one (or replaced by a newer one of
   * its watch) the other copy is stale, known by its generation, and dropped when it surfaces.
   */
  private record Entry(LeaseWatch watch, long dueAt, long earliest, long generation) {}

  private final ScheduledExecutorService executor;
  private final LongSupplier monotonicNanos;
  private final PriorityQueue<Entry> byDue = new PriorityQueue<>(Comparator.comparingLong(Entry::dueAt));
  private final PriorityQueue<Entry> byEarliest = new PriorityQueue<>(Comparator.comparingLong(Entry::earliest));
  /** The wake scheduled on the executor, and the instant it runs at; null when none. */
  private ScheduledFuture<?> wake;
  private long wakeAt;

  RenewalQueue(ScheduledExecutorService executor, LongSupplier monotonicNanos) {
    this.executor = executor;
    this.monotonicNanos = monotonicNanos;
  }

  /**
   * Queues {@code watch}'s next renewal, to be sent at {@code dueAt} at the latest and, with others,
   * from {@code earliest} on; false if the executor refused the wake (it is shutting down).
   */
  synchronized boolean add(LeaseWatch watch, long dueAt, long earliest) {
    Entry entry = new Entry(watch, dueAt, earliest, ++watch.generation);
    byDue.add(entry);
    byEarliest.add(entry);
    try {
      scheduleWake();
      return true;
    } catch (RejectedExecutionException e) {
      watch.generation++;
      return false;
    }
  }

  private static boolean stale(Entry e) {
    return e.generation() != e.watch().generation || !e.watch().isActive();
  }

  private void scheduleWake() {
    while (!byDue.isEmpty() && stale(byDue.peek())) {
      byDue.poll();
    }
    // The wake runs exactly at the head's latest instant: never for a renewal that was cancelled
    // or already sent, so every wake sends at least the renewal it was scheduled for.
    Entry head = byDue.peek();
    if (wake != null && head != null && wakeAt == head.dueAt()) {
      return;
    }
    if (wake != null) {
      wake.cancel(false);
      wake = null;
    }
    if (head == null) {
      return;
    }
    wakeAt = head.dueAt();
    wake = executor.schedule(this::wake, Math.max(0, wakeAt - monotonicNanos.getAsLong()), TimeUnit.NANOSECONDS);
  }

  private void wake() {
    List<LeaseWatch> due = new ArrayList<>();
    synchronized (this) {
      wake = null;
      long now = monotonicNanos.getAsLong();
      while (!byEarliest.isEmpty() && byEarliest.peek().earliest() - now <= 0) {
        Entry entry = byEarliest.poll();
        if (!stale(entry)) {
          entry.watch().generation++;
          due.add(entry.watch());
        }
      }
      try {
        scheduleWake();
      } catch (RejectedExecutionException e) {
        // Shutting down: the renewals sent below are the last.
      }
    }
    // Outside the lock: a handle without a non-blocking renew sends on this thread.
    due.forEach(LeaseWatch::renewNow);
  }
}
