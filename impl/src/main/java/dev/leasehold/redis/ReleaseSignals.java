package dev.leasehold.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link RedisLeaseConfig.Sleeper} that wakes a waiting {@code tryAcquire} as soon as the holder
 * releases: RELEASE publishes on {@link LeaseKeys#releaseChannel()} when it deletes the lease, and
 * this sleeper is subscribed to that channel for as long as someone sleeps on it.
 *
 * <p><b>The choice.</b> One pub/sub connection per instance, shared by every waiter. A channel is
 * subscribed when its first waiter starts sleeping and unsubscribed when its last waiter stops, so
 * the connection carries only the channels someone is waiting on right now. The sleep itself
 * waits for the {@code SUBSCRIBE} acknowledgement and then for a message or the end of the pause,
 * whichever comes first. An early return only makes the wait loop try again at once; it never
 * grants anything, so a lost, duplicated or spurious message cannot break safety.
 *
 * <p><b>The cost.</b> One extra connection (and, in a cluster, messages broadcast on the cluster
 * bus, since RELEASE uses classic {@code PUBLISH}); a {@code SUBSCRIBE} and an {@code UNSUBSCRIBE}
 * round trip for every sleep of a channel nobody else is waiting on; a release that happens between
 * the contended reply and the subscription acknowledgement is missed, and that waiter sleeps its
 * full jittered {@code retryAfter} (what it would have done without signals). When the pub/sub
 * connection is down, sleeping falls back to a plain timed wait.
 *
 * <p>This class is threadsafe.
 */
public final class ReleaseSignals implements RedisLeaseConfig.Sleeper, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReleaseSignals.class);

  private final StatefulRedisPubSubConnection<String, String> connection;
  private final boolean ownsConnection;
  private final Object lock = new Object();
  /** Per channel, the latches of the sleepers waiting on it and the pending subscription. Guarded by {@link #lock}. */
  private final Map<String, Channel> channels = new HashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong signalledWakeups = new AtomicLong();
  private final AtomicLong timedWakeups = new AtomicLong();

  private static final class Channel {
    final Set<CountDownLatch> sleepers = new HashSet<>();
    RedisFuture<Void> subscribed;
  }

  private ReleaseSignals(StatefulRedisPubSubConnection<String, String> connection, boolean ownsConnection) {
    this.connection = Arguments.notNull("connection", connection);
    this.ownsConnection = ownsConnection;
    connection.addListener(new RedisPubSubAdapter<>() {
      @Override
      public void message(String channel, String message) {
        signal(channel);
      }
    });
  }

  /**
   * Sleeps on {@code connection}, which this instance owns: {@link #close()} closes it. Works for
   * standalone, Sentinel ({@code RedisClient.connectPubSub()}) and cluster
   * ({@code RedisClusterClient.connectPubSub()}) connections.
   */
  public static ReleaseSignals owning(StatefulRedisPubSubConnection<String, String> connection) {
    return new ReleaseSignals(connection, true);
  }

  /** Sleeps on a connection the caller keeps and closes; {@link #close()} leaves it open. */
  public static ReleaseSignals over(StatefulRedisPubSubConnection<String, String> connection) {
    return new ReleaseSignals(connection, false);
  }

  @Override
  public void sleep(LeaseKeys keys, Duration duration) throws InterruptedException {
    long end = System.nanoTime() + duration.toNanos();
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before sleeping");
    }
    if (closed.get()) {
      timedSleep(duration.toNanos());
      return;
    }
    String name = keys.releaseChannel();
    CountDownLatch woken = new CountDownLatch(1);
    RedisFuture<Void> subscribed = join(name, woken);
    try {
      if (!awaitSubscribed(subscribed, end)) {
        timedSleep(end - System.nanoTime());
        return;
      }
      if (woken.await(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        signalledWakeups.incrementAndGet();
      } else {
        timedWakeups.incrementAndGet();
      }
    } finally {
      leave(name, woken);
    }
  }

  /** Whether the subscription was acknowledged before {@code end}. */
  private boolean awaitSubscribed(RedisFuture<Void> subscribed, long end) throws InterruptedException {
    if (subscribed == null) {
      return false;
    }
    try {
      subscribed.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      return true;
    } catch (ExecutionException | TimeoutException e) {
      log.debug("release-channel subscription not confirmed, sleeping without signals: {}", e.toString());
      return false;
    }
  }

  private RedisFuture<Void> join(String name, CountDownLatch woken) {
    synchronized (lock) {
      Channel channel = channels.computeIfAbsent(name, n -> new Channel());
      channel.sleepers.add(woken);
      if (channel.subscribed == null) {
        try {
          // Commands on one connection run in order, so a pending UNSUBSCRIBE of this channel
          // cannot overtake this SUBSCRIBE.
          channel.subscribed = connection.async().subscribe(name);
        } catch (RuntimeException e) {
          log.debug("could not subscribe to a release channel: {}", e.toString());
        }
      }
      return channel.subscribed;
    }
  }

  private void leave(String name, CountDownLatch woken) {
    synchronized (lock) {
      Channel channel = channels.get(name);
      if (channel == null) {
        return;
      }
      channel.sleepers.remove(woken);
      if (channel.sleepers.isEmpty()) {
        channels.remove(name);
        if (channel.subscribed != null && !closed.get()) {
          try {
            connection.async().unsubscribe(name);
          } catch (RuntimeException e) {
            log.debug("could not unsubscribe from a release channel: {}", e.toString());
          }
        }
      }
    }
  }

  private void signal(String name) {
    synchronized (lock) {
      Channel channel = channels.get(name);
      if (channel != null) {
        channel.sleepers.forEach(CountDownLatch::countDown);
      }
    }
  }

  private static void timedSleep(long nanos) throws InterruptedException {
    if (nanos > 0) {
      TimeUnit.NANOSECONDS.sleep(nanos);
    }
  }

  /** Sleeps that ended because a release was announced (the waiter then tries at once). */
  public long signalledWakeups() {
    return signalledWakeups.get();
  }

  /** Sleeps that ran their full length while subscribed. */
  public long timedWakeups() {
    return timedWakeups.get();
  }

  /** The channels someone is sleeping on now. */
  public int activeChannels() {
    synchronized (lock) {
      return channels.size();
    }
  }

  /**
   * Wakes every sleeper (they try again at once) and closes the connection if this instance owns
   * it. Later sleeps are plain timed waits. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    synchronized (lock) {
      channels.values().forEach(c -> c.sleepers.forEach(CountDownLatch::countDown));
    }
    if (ownsConnection) {
      connection.close();
    }
  }
}
