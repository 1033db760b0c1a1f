package dev.leasehold.bench.scale;

import dev.leasehold.bench.CpuMeter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Many waiters on one resource: {@code waiters + 1} threads spread over {@value #CLIENTS} clients
 * take turns holding it. The holder holds for {@link #HOLD}, releases, and waits for another
 * thread's grant before it queues again, so every release goes to one of the {@code waiters}
 * threads blocked in a waiting acquire. A handoff is the time from the start of the holder's
 * release to the next holder's grant, both read on this JVM's monotonic clock.
 *
 * <p>The holder's wait for the next grant is what makes each release a handoff; without it the
 * releasing thread could take the lease straight back, and the run would time its own loop.
 *
 * <p>This class is threadsafe; {@link #run} is called from one thread.
 */
final class HandoffScale {
  static final int CLIENTS = 4;
  static final Duration TTL = Duration.ofSeconds(30);
  /** Above any handoff: a waiter that misses every signal still waits, and shows in the p99. */
  static final Duration WAIT = Duration.ofSeconds(60);
  /** Long enough for the woken waiters that lost to go back to sleep. */
  static final Duration HOLD = Duration.ofMillis(1);

  /**
   * One library at one number of waiters.
   *
   * @param handoffs the handoffs in the measured window
   * @param commandsPerHandoff the commands clients sent (scripts, subscriptions) per handoff
   */
  record Result(String library, int waiters, Percentiles latency, int handoffs, double commandsPerHandoff,
      double serverCpuMicrosPerHandoff, double clientCpuMicrosPerHandoff) {}

  private HandoffScale() {}

  static Result run(ScaleLibrary library, String server, ServerMeter meter, int waiters, Duration warmup,
      Duration measure) throws InterruptedException {
    List<ScaleLibrary.Client> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      clients.add(library.open(List.of(server), false, 0));
    }
    Turns turns = new Turns("scale:handoff:" + UUID.randomUUID());
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i <= waiters; i++) {
      ScaleLibrary.Client client = clients.get(i % CLIENTS);
      Thread thread = new Thread(() -> turns.take(client), "handoff-" + i);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    try {
      Thread.sleep(warmup.toMillis());
      ServerMeter.Reading server0 = meter.read();
      long client0 = CpuMeter.processCpuNanos();
      turns.measuring = true;
      Thread.sleep(measure.toMillis());
      turns.measuring = false;
      long clientNanos = CpuMeter.processCpuNanos() - client0;
      ServerMeter.Reading done = meter.read().minus(server0);
      turns.failed();
      long[] latencies = turns.latencies();
      if (latencies.length == 0) {
        throw new IllegalStateException(library.name() + ": no handoff in " + measure);
      }
      int n = latencies.length;
      return new Result(library.name(), waiters, Percentiles.of(latencies), latencies.length,
          (double) done.commands() / n, done.cpuSeconds() * 1e6 / n, clientNanos / 1e3 / n);
    } finally {
      turns.stop = true;
      threads.forEach(Thread::interrupt);
      for (Thread thread : threads) {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      }
      clients.forEach(ScaleLibrary.Client::close);
    }
  }

  /** The shared state of one run's threads. */
  private static final class Turns {
    final String resource;
    final List<Long> latencies = new ArrayList<>();
    final AtomicLong grants = new AtomicLong();
    final Object granted = new Object();
    final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    volatile long releaseStarted;
    volatile boolean measuring;
    volatile boolean stop;

    Turns(String resource) {
      this.resource = resource;
    }

    void take(ScaleLibrary.Client client) {
      try {
        while (!stop) {
          ScaleLibrary.Held held = client.acquire(resource, TTL, WAIT);
          if (held != null) {
            hold(held);
          }
        }
      } catch (InterruptedException e) {
        // Stopped while waiting.
      } catch (RuntimeException e) {
        if (!stop) {
          failure.compareAndSet(null, e);
        }
      }
    }

    private void hold(ScaleLibrary.Held held) {
      long grantedAt = System.nanoTime();
      long released = releaseStarted;
      if (measuring && released != 0) {
        synchronized (latencies) {
          latencies.add(grantedAt - released);
        }
      }
      long grant = grants.incrementAndGet();
      synchronized (granted) {
        granted.notifyAll();
      }
      LockSupport.parkNanos(HOLD.toNanos());
      releaseStarted = System.nanoTime();
      held.release();
      awaitNextGrant(grant);
    }

    private void awaitNextGrant(long grant) {
      synchronized (granted) {
        while (grants.get() == grant && !stop) {
          try {
            granted.wait(1_000);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }

    /** Throws what a thread failed with, if one did. */
    void failed() {
      RuntimeException e = failure.get();
      if (e != null) {
        throw new IllegalStateException("a handoff thread failed", e);
      }
    }

    long[] latencies() {
      synchronized (latencies) {
        return latencies.stream().mapToLong(Long::longValue).toArray();
      }
    }
  }
}
