package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link ReleaseSignals} on a real server: one subscription per channel, early wake, fallbacks. */
class ReleaseSignalsIntegrationTests {
  static RedisServerExtension redis;
  static RedisClient client;
  static RedisCommands<String, String> raw;

  @BeforeAll
  static void start() {
    redis = RedisServerExtension.start("signals-it");
    client = redis.client();
    raw = redis.commands();
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  static LeaseKeys keys(String name) {
    return new LeaseKeys("it:lease:v1:{" + name + "}", "it:lease:v1:{" + name + "}:fence");
  }

  @Test
  void twoSleepersShareOneSubscription_andOnePublishWakesBoth() throws Exception {
    LeaseKeys keys = keys("shared");
    String channel = keys.releaseChannel();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (ReleaseSignals signals = ReleaseSignals.owning(client.connectPubSub())) {
      List<Future<Long>> sleepers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        sleepers.add(pool.submit(() -> {
          long start = System.nanoTime();
          signals.sleep(keys, Duration.ofSeconds(20));
          return System.nanoTime() - start;
        }));
      }
      RedisLeasesIntegrationTests.await(
          () -> signals.activeChannels() == 1 && raw.pubsubNumsub(channel).getOrDefault(channel, 0L) == 1, Duration.ofSeconds(5));
      Thread.sleep(100); // let the second sleeper reach its wait as well
      raw.publish(channel, "1");
      for (Future<Long> sleeper : sleepers) {
        assertTrue(sleeper.get(5, TimeUnit.SECONDS) < Duration.ofSeconds(10).toNanos());
      }
      assertEquals(2, signals.signalledWakeups());
      RedisLeasesIntegrationTests.await(() -> raw.pubsubNumsub(channel).getOrDefault(channel, 0L) == 0, Duration.ofSeconds(5));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void withoutAMessage_theSleepRunsItsLength_andAnInterruptStopsIt() throws InterruptedException {
    try (ReleaseSignals signals = ReleaseSignals.owning(client.connectPubSub())) {
      long start = System.nanoTime();
      signals.sleep(keys("quiet"), Duration.ofMillis(200));
      assertTrue(System.nanoTime() - start >= Duration.ofMillis(200).toNanos());
      assertEquals(1, signals.timedWakeups());
      Thread.currentThread().interrupt();
      assertThrows(InterruptedException.class, () -> signals.sleep(keys("quiet"), Duration.ofSeconds(10)));
    }
  }

  @Test
  void afterClose_sleepIsATimedWait_andCloseIsIdempotent() throws InterruptedException {
    ReleaseSignals signals = ReleaseSignals.owning(client.connectPubSub());
    signals.close();
    signals.close();
    long start = System.nanoTime();
    signals.sleep(keys("closed"), Duration.ofMillis(100));
    assertTrue(System.nanoTime() - start >= Duration.ofMillis(100).toNanos());
    assertEquals(0, signals.activeChannels());
  }
}
