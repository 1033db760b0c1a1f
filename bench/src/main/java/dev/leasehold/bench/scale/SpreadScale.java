package dev.leasehold.bench.scale;

import dev.leasehold.bench.CpuMeter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Acquire+release at {@value #THREADS} threads, each thread cycling through resources of its own
 * ({@code perThread} of them, so nothing contends), on one server or a cluster: whether a cost
 * grows with the number of distinct resources in use (client-side state per resource, keys left on
 * the server).
 *
 * <p>This class is threadsafe; {@link #run} is called from one thread.
 */
final class SpreadScale {
  static final int THREADS = 8;
  static final Duration TTL = Duration.ofSeconds(30);

  /** One library at one spread. Throughput in operations (acquire+release) per second. */
  record Result(String library, String topology, int perThread, double throughput, Percentiles latency,
      double clientCpuMicrosPerOp, double serverCpuMicrosPerOp) {}

  private SpreadScale() {}

  static Result run(ScaleLibrary library, List<String> servers, boolean cluster, ServerMeter meter, int perThread,
      Duration warmup, Duration measure) throws InterruptedException {
    ScaleLibrary.Client client = library.open(servers, cluster, 0);
    try {
      Loop[] loops = new Loop[THREADS];
      List<Thread> threads = new ArrayList<>();
      String run = UUID.randomUUID().toString();
      for (int t = 0; t < THREADS; t++) {
        loops[t] = new Loop(client, "scale:spread:" + run + ":" + t + ":", perThread);
        Thread thread = new Thread(loops[t], "spread-" + t);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
      }
      Thread.sleep(warmup.toMillis());
      Arrays.stream(loops).forEach(Loop::startMeasuring);
      ServerMeter.Reading server0 = meter.read();
      long cpu0 = CpuMeter.processCpuNanos();
      long start = System.nanoTime();
      Thread.sleep(measure.toMillis());
      Arrays.stream(loops).forEach(Loop::stopMeasuring);
      double seconds = (System.nanoTime() - start) / 1e9;
      long cpu = CpuMeter.processCpuNanos() - cpu0;
      ServerMeter.Reading server = meter.read().minus(server0);
      Arrays.stream(loops).forEach(Loop::stop);
      for (Thread thread : threads) {
        thread.join(10_000);
      }
      for (Loop loop : loops) {
        if (loop.failure.get() != null) {
          throw new IllegalStateException(library.name() + " spread run failed", loop.failure.get());
        }
      }
      long[] all = Arrays.stream(loops).flatMapToLong(l -> Arrays.stream(l.samples())).toArray();
      int ops = Math.max(1, all.length);
      return new Result(library.name(), cluster ? "cluster" : "standalone", perThread, all.length / seconds,
          Percentiles.of(all), cpu / 1e3 / ops, server.cpuSeconds() * 1e6 / ops);
    } finally {
      client.close();
    }
  }

  /** One thread's loop: acquire (one try) and release, over its own resources in turn. */
  private static final class Loop implements Runnable {
    final ScaleLibrary.Client client;
    final String prefix;
    final int resources;
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile boolean measuring;
    volatile boolean stop;
    long[] samples = new long[1 << 16];
    int count;

    Loop(ScaleLibrary.Client client, String prefix, int resources) {
      this.client = client;
      this.prefix = prefix;
      this.resources = resources;
    }

    @Override
    public void run() {
      try {
        for (long i = 0; !stop; i++) {
          String resource = prefix + (i % resources);
          long start = System.nanoTime();
          ScaleLibrary.Held held = client.acquire(resource, TTL, Duration.ZERO);
          if (held == null) {
            throw new IllegalStateException("contended on a resource only this thread uses: " + resource);
          }
          held.release();
          if (measuring) {
            record(System.nanoTime() - start);
          }
        }
      } catch (Throwable e) {
        failure.set(e);
      }
    }

    private void record(long nanos) {
      if (count == samples.length) {
        samples = Arrays.copyOf(samples, count * 2);
      }
      samples[count++] = nanos;
    }

    void startMeasuring() {
      measuring = true;
    }

    void stopMeasuring() {
      measuring = false;
    }

    void stop() {
      stop = true;
    }

    /** Read after the thread has ended. */
    long[] samples() {
      return Arrays.copyOf(samples, count);
    }
  }
}
