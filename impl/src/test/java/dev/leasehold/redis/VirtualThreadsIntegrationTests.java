package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisServerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code withLease} from virtual threads (Java 21 and later; the library is built for 17, so the
 * executor is looked up at run time and on 17 the tests are skipped, saying so). 10,000 virtual
 * threads go through {@code withLease} on 100 resources, through the wait loop, and one work per
 * resource lasts two renewal intervals so that the watchdog must renew it. Judged in the process:
 * at most one work inside a resource at a time, tokens rising per resource, every lease granted,
 * and kept and released when its work began with validity left; the watchdog renewed each long
 * work that began with a renewal interval of validity left (its validity at the end is more than what
 * was left at the start less the work's time); and no virtual thread pinned to its carrier, as
 * the JDK's own {@code jdk.VirtualThreadPinned} events, recorded with no threshold, report.
 *
 * <p>Ten thousand virtual threads that start at once keep two carriers busy: a thread whose grant
 * has come back may be resumed only after its lease's validity has run out. {@code withLease} then
 * reports the loss rather than run the work on a lease it cannot rely on, which this test allows
 * and counts.
 */
class VirtualThreadsIntegrationTests {
  static final int THREADS = 10_000;
  static final int RESOURCES = 100;
  static final Duration TTL = Duration.ofSeconds(3);
  /** Two renewal intervals (the watchdog renews every third of the TTL): a renewal falls due during it. */
  static final Duration LONG_WORK = TTL.multipliedBy(2).dividedBy(LeaseWatchdog.DEFAULT_RENEW_DIVISOR);
  /**
   * A long work that begins with this much validity left is renewed in time by a watchdog on
   * schedule: a renewal is due a third of the TTL after the last, and never later than half of
   * what is left.
   */
  static final Duration RENEWAL_DUE = TTL.dividedBy(LeaseWatchdog.DEFAULT_RENEW_DIVISOR);
  static final String PINNED = "jdk.VirtualThreadPinned";

  static RedisServerExtension redis;

  @TempDir
  Path dir;

  @BeforeAll
  static void startServer() {
    redis = RedisServerExtension.start("virtual-threads-it");
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  /** What one work saw: its validity when it began and, for a long work, when it ended. */
  record Seen(Duration atStart, Duration atEnd) {}

  @Test
  void tenThousandVirtualThreadsThroughWithLease_onAHundredResources_holdEveryInvariant_andPinNoCarrier() throws Exception {
    AtomicIntegerArray inside = new AtomicIntegerArray(RESOURCES);
    AtomicLongArray lastToken = new AtomicLongArray(RESOURCES);
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger tokensNotRising = new AtomicInteger();
    Seen[] seen = new Seen[THREADS];
    CountDownLatch longWorksBegan = new CountDownLatch(RESOURCES);
    List<LeaseResult<Long>> results = new ArrayList<>();
    ExecutorService virtual = virtualThreads();
    List<RecordedEvent> pins;
    try (RedisLeases leases = RedisLeases.builder(redis.uri()).namespace("it-virtual").build()) {
      pins = recordingPins(() -> {
        try {
          List<Future<LeaseResult<Long>>> futures = new ArrayList<>();
          for (int i = 0; i < THREADS; i++) {
            if (i == RESOURCES) {
              // The long works hold every resource before the others come to wait for them: each
              // began with its validity whole, and its renewals fall due while the rest wait.
              assertTrue(longWorksBegan.await(1, TimeUnit.MINUTES), "the long works did not begin within a minute");
            }
            int task = i;
            int r = i % RESOURCES;
            LeaseRequest request = new LeaseRequest("virtual", ResourceDigests.sha256("resource-" + r),
                Duration.ofMinutes(2), TTL, leases.newAttempt("vt-" + i));
            futures.add(virtual.submit(() -> leases.withLease(request, context -> {
              Duration atStart = context.handle().remainingValidity();
              if (inside.incrementAndGet(r) != 1) {
                overlaps.incrementAndGet();
              }
              long token = context.fencingToken().orElseThrow();
              if (lastToken.getAndSet(r, token) >= token) {
                tokensNotRising.incrementAndGet();
              }
              Duration atEnd = null;
              if (task < RESOURCES) {
                longWorksBegan.countDown();
                Thread.sleep(LONG_WORK.toMillis());
                atEnd = context.handle().remainingValidity();
              }
              inside.decrementAndGet(r);
              seen[task] = new Seen(atStart, atEnd);
              return token;
            })));
          }
          for (Future<LeaseResult<Long>> f : futures) {
            results.add(f.get());
          }
        } finally {
          virtual.shutdownNow();
        }
      });
    }
    assertEquals(0, overlaps.get(), "two works inside one resource at once");
    assertEquals(0, tokensNotRising.get(), "a token did not rise within its resource");
    int lateStarts = 0;
    int judgedLong = 0;
    for (int i = 0; i < THREADS; i++) {
      LeaseResult<Long> result = results.get(i);
      Seen s = seen[i];
      assertTrue(s != null, "work " + i + " never ran: " + result);
      if (s.atStart().isZero()) {
        lateStarts++;
        continue;   // resumed after its validity ran out: withLease reports the loss, as it should
      }
      assertTrue(result instanceof LeaseResult.Completed<Long> c && c.release() instanceof ReleaseOutcome.Released,
          "work " + i + " began with " + s.atStart().toMillis() + " ms of validity left, and ended " + result);
      if (s.atEnd() != null && s.atStart().compareTo(RENEWAL_DUE) >= 0) {
        judgedLong++;
        assertTrue(s.atEnd().compareTo(s.atStart().minus(LONG_WORK)) > 0, "long work " + i + " began with "
            + s.atStart().toMillis() + " ms left and ended with " + s.atEnd().toMillis() + " ms: the watchdog did not renew it");
      }
    }
    List<RecordedEvent> forNetwork = pins.stream().filter(VirtualThreadsIntegrationTests::waitsForTheNetwork).toList();
    System.out.println("virtual threads: " + THREADS + " works, " + lateStarts + " resumed after their validity ran out, "
        + judgedLong + " long works judged for renewal; pinned " + pins.size() + " times, " + forNetwork.size()
        + " of them for a network call; where: " + pins.stream().map(VirtualThreadsIntegrationTests::where).distinct().toList());
    assertEquals(RESOURCES, judgedLong, "not every long work began with " + RENEWAL_DUE.toMillis() + " ms of validity left");
    assertTrue(forNetwork.isEmpty(), () -> forNetwork.size() + " virtual thread(s) pinned to their carrier for a network call,"
        + " the first at " + frames(forNetwork.get(0)));
  }

  /**
   * The judgement sees a pin for a network call when there is one: a virtual thread that waits for
   * Redis inside a class initializer is pinned, on every JDK with virtual threads.
   */
  @Test
  void aVirtualThreadWaitingForRedisInAClassInitializer_isSeenPinnedForANetworkCall() throws Exception {
    ExecutorService virtual = virtualThreads();
    List<RecordedEvent> pins;
    try {
      pins = recordingPins(() -> virtual.submit(PingsInItsInitializer::touch).get());
    } finally {
      virtual.shutdownNow();
    }
    assertTrue(pins.stream().anyMatch(VirtualThreadsIntegrationTests::waitsForTheNetwork),
        () -> "a virtual thread waited for Redis in a class initializer, and no pin for a network call was seen: " + pins);
  }

  /** Waits a second for a reply from Redis in its class initializer, which pins the virtual thread running it. */
  static final class PingsInItsInitializer {
    static {
      redis.commands().blpop(1, "virtual-threads-it:empty");
    }

    static void touch() {}
  }

  /** Whether the pinned thread was waiting for the network: a frame of the Redis client or of a socket. */
  static boolean waitsForTheNetwork(RecordedEvent pin) {
    return pin.getStackTrace() != null && pin.getStackTrace().getFrames().stream()
        .map(f -> f.getMethod().getType().getName())
        .anyMatch(c -> c.startsWith("io.lettuce.") || c.startsWith("io.netty.") || c.startsWith("java.net.")
            || c.startsWith("sun.nio.ch."));
  }

  /** The pinned thread's innermost frame outside the JDK, or its top frame. */
  private static String where(RecordedEvent pin) {
    List<String> frames = frames(pin);
    return frames.stream().filter(f -> !f.startsWith("java.") && !f.startsWith("jdk.")).findFirst()
        .orElse(frames.isEmpty() ? "?" : frames.get(0));
  }

  private static List<String> frames(RecordedEvent pin) {
    return pin.getStackTrace() == null ? List.of() : pin.getStackTrace().getFrames().stream()
        .map(f -> f.getMethod().getType().getName() + "." + f.getMethod().getName()).toList();
  }

  interface Run {
    void run() throws Exception;
  }

  /** The pinned events recorded while {@code run} runs. */
  private List<RecordedEvent> recordingPins(Run run) throws Exception {
    Path file = Files.createTempFile(dir, "pins", ".jfr");
    try (Recording recording = new Recording()) {
      recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
      recording.start();
      run.run();
      recording.stop();
      recording.dump(file);
    }
    return RecordingFile.readAllEvents(file).stream().filter(e -> e.getEventType().getName().equals(PINNED)).toList();
  }

  /** A virtual-thread-per-task executor, looked up at run time: the tests are compiled for Java 17. */
  private static ExecutorService virtualThreads() {
    try {
      return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    } catch (NoSuchMethodException e) {
      assumeTrue(false, "virtual threads need Java 21 or later; this is Java " + Runtime.version().feature());
      throw new AssertionError(e);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
