package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link ReleaseSignals} on a real server: one subscription per channel, early wake, fallbacks. */
class ReleaseSignalsIntegrationTests {
  /** Far longer than any test: a subscription must not end between two steps of a slow run. */
  static final Duration LONG_LINGER = Duration.ofSeconds(60);

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
    return new LeaseKeys("it:lease:v1:{" + name + "}");
  }

  /** A sleeper on its own thread; its future ends when the sleep does. */
  static Future<?> sleeping(ExecutorService pool, ReleaseSignals signals, LeaseKeys keys, Duration length) {
    return pool.submit(() -> {
      signals.sleep(keys, length);
      return null;
    });
  }

  static long subscribers(String channel) {
    return raw.pubsubNumsub(channel).getOrDefault(channel, 0L);
  }

  /**
   * Subscribes {@code keys}' channel: a first sleep of 30 s returns once the subscription is
   * acknowledged, and the subscription stays for the sleeps that follow.
   */
  static void subscribe(ReleaseSignals signals, LeaseKeys keys) throws InterruptedException {
    long before = signals.subscribedWakeups();
    long start = System.nanoTime();
    signals.sleep(keys, Duration.ofSeconds(30));
    assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "returned once subscribed");
    assertEquals(before + 1, signals.subscribedWakeups());
    assertEquals(1, subscribers(keys.releaseChannel()));
  }

  @Test
  void aSleepThatSubscribes_returnsOnceSubscribed_andTheSubscriptionStaysForTheNextSleep() throws Exception {
    LeaseKeys keys = keys("fresh");
    ExecutorService pool = Executors.newFixedThreadPool(1);
    try (ReleaseSignals signals = ReleaseSignals.owning(client.connectPubSub(), LONG_LINGER)) {
      // A release published before the acknowledgement reached nobody, so the sleep must not last
      // its 30 s: it returns and the wait loop tries again.
      subscribe(signals, keys);
      assertEquals(0, signals.signalledWakeups() + signals.timedWakeups());
      Future<?> next = sleeping(pool, signals, keys, Duration.ofSeconds(30));
      RedisLeasesIntegrationTests.await(() -> signals.activeChannels() == 1, Duration.ofSeconds(5));
      raw.publish(keys.releaseChannel(), "1");
      next.get(5, TimeUnit.SECONDS);
      assertEquals(1, signals.signalledWakeups());
      assertEquals(1, signals.subscribedWakeups(), "the second sleep found the subscription in place");
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A waiter's first sleep on a channel ends when the subscription is acknowledged; the tests that
   * wait for its second sleep read the count of such ends, then the sleepers. A sleep counted must
   * no longer be among them, or a release sent then reaches no sleeper and the waiter's next try
   * wins it unsignalled. Read while each first sleep ends, on fresh channels.
   */
  @Test
  void aSleepCountedAsEndedBySubscribing_isNoLongerAmongTheSleepers() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(1);
    try (ReleaseSignals signals = ReleaseSignals.owning(client.connectPubSub(), LONG_LINGER)) {
      for (int i = 0; i < 200; i++) {
        LeaseKeys keys = keys("counted-" + i);
        long before = signals.subscribedWakeups();
        Future<?> first = sleeping(pool, signals, keys, Duration.ofSeconds(30));
        while (!first.isDone()) {
          boolean counted = signals.subscribedWakeups() > before;
          int sleepers = signals.sleepersOn(keys.releaseChannel());
          assertFalse(counted && sleepers > 0, "sleep " + i + " counted while still among the sleepers");
        }
        first.get();
        assertEquals(before + 1, signals.subscribedWakeups());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void sleepersShareOneSubscription_andOnePublishWakesOne_theLongestAsleep() throws Exception {
    LeaseKeys keys = keys("shared");
    String channel = keys.releaseChannel();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (ReleaseSignals signals = ReleaseSignals.owning(client.connectPubSub(), LONG_LINGER)) {
      subscribe(signals, keys);
      Future<?> first = sleeping(pool, signals, keys, Duration.ofSeconds(30));
      RedisLeasesIntegrationTests.await(() -> signals.sleepersOn(channel) == 1, Duration.ofSeconds(5));
      // The second sleep is short: whether the publish woke it shows in which counter its end went to.
      Future<?> second = sleeping(pool, signals, keys, Duration.ofSeconds(3));
      RedisLeasesIntegrationTests.await(() -> signals.sleepersOn(channel) == 2, Duration.ofSeconds(5));
      raw.publish(channel, "1");
      first.get(5, TimeUnit.SECONDS);
      second.get(10, TimeUnit.SECONDS);
      assertEquals(1, signals.signalledWakeups(), "one release woke one sleeper");
      assertEquals(1, signals.timedWakeups(), "the other slept its length");
      assertEquals(1, subscribers(channel), "one subscription for both sleepers");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aReleaseWhileNobodySleeps_isKeptForTheNextSleeper() throws Exception {
    LeaseKeys keys = keys("between");
    StatefulRedisPubSubConnection<String, String> connection = client.connectPubSub();
    CountDownLatch delivered = new CountDownLatch(1);
    try (ReleaseSignals signals = ReleaseSignals.over(connection, LONG_LINGER)) {
      subscribe(signals, keys);
      // Listeners run in the order they were added, so once this one has the message, so has the sleeper's.
      connection.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String channel, String message) {
          delivered.countDown();
        }
      });
      // A waiter between its contended reply and its next sleep: the release comes now.
      raw.publish(keys.releaseChannel(), "1");
      assertTrue(delivered.await(5, TimeUnit.SECONDS));
      long start = System.nanoTime();
      signals.sleep(keys, Duration.ofSeconds(30));
      assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "did not sleep through the release");
      assertEquals(1, signals.signalledWakeups());
    } finally {
      connection.close();
    }
  }

  @Test
  void anIdleSubscription_endsAfterTheLinger() throws Exception {
    Duration linger = Duration.ofMillis(200);
    try (ReleaseSignals signals = ReleaseSignals.owning(client.connectPubSub(), linger)) {
      LeaseKeys idle = keys("idle");
      LeaseKeys other = keys("idle-other");
      subscribe(signals, idle);
      subscribe(signals, other);
      // Both end, each by the drop pending when it fell idle or by the one after it.
      RedisLeasesIntegrationTests.await(() -> subscribers(idle.releaseChannel()) == 0
          && subscribers(other.releaseChannel()) == 0, linger.plusSeconds(5));
      assertEquals(0, signals.activeChannels());
    }
  }

  @Test
  void withoutAMessage_theSleepRunsItsLength_andAnInterruptStopsIt() throws InterruptedException {
    try (ReleaseSignals signals = ReleaseSignals.owning(client.connectPubSub(), LONG_LINGER)) {
      subscribe(signals, keys("quiet"));
      long start = System.nanoTime();
      signals.sleep(keys("quiet"), Duration.ofMillis(200));
      assertTrue(System.nanoTime() - start >= Duration.ofMillis(200).toNanos());
      assertEquals(1, signals.timedWakeups());
      Thread.currentThread().interrupt();
      assertThrows(InterruptedException.class, () -> signals.sleep(keys("quiet"), Duration.ofSeconds(10)));
    }
  }

  @Test
  void closingOverACallersConnection_unsubscribesWhatItSubscribed_andLeavesTheConnectionOpen() throws Exception {
    LeaseKeys keys = keys("borrowed");
    StatefulRedisPubSubConnection<String, String> connection = client.connectPubSub();
    try {
      ReleaseSignals signals = ReleaseSignals.over(connection, LONG_LINGER);
      subscribe(signals, keys);
      signals.close();
      RedisLeasesIntegrationTests.await(() -> subscribers(keys.releaseChannel()) == 0, Duration.ofSeconds(5));
      assertTrue(connection.isOpen());
    } finally {
      connection.close();
    }
  }

  @Test
  void afterClose_sleepIsATimedWait_andCloseIsIdempotent() throws InterruptedException {
    ReleaseSignals signals = ReleaseSignals.owning(client.connectPubSub(), LONG_LINGER);
    signals.close();
    signals.close();
    long start = System.nanoTime();
    signals.sleep(keys("closed"), Duration.ofMillis(100));
    assertTrue(System.nanoTime() - start >= Duration.ofMillis(100).toNanos());
    assertEquals(0, signals.activeChannels());
  }
}
