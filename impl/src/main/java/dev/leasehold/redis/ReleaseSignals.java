package dev.leasehold.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
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
 * this sleeper is subscribed to that channel while someone waits on it.
 *
 * <p><b>The choice.</b> One pub/sub connection per instance, shared by every waiter. A channel is
 * subscribed when its first waiter starts sleeping and unsubscribed once nobody has slept on it for
 * {@link #LINGER}, so the connection carries only the channels someone waits on now or just did.
 * <ul>
 *   <li><b>No release is missed.</b> A sleep that finds its channel's subscription not yet
 *       acknowledged returns as soon as it is: a release that came between the contended reply and
 *       the subscription had no one to tell, so the wait loop tries again at once, and from then on
 *       every release reaches it. The subscription outlives that sleep by {@link #LINGER}, so the
 *       retry's own sleep finds it in place and waits for a message. A release announced while
 *       none of the channel's waiters sleeps (one is between its contended reply and its next
 *       sleep) is kept for the next sleeper, which then does not sleep.</li>
 *   <li><b>One release wakes one sleeper</b>, the one asleep longest: a release frees the lease for
 *       one holder, and waking every sleeper of the resource would send one ACQUIRE each for a
 *       single grant. A woken sleeper that loses to a waiter of another client goes back to sleep;
 *       the others sleep on.</li>
 * </ul>
 * An early return only makes the wait loop try again at once; it never grants anything, so a lost,
 * duplicated or spurious message cannot break safety. The spec's wait loop may try again at any
 * time, and these wakes only choose when.
 *
 * <p><b>The cost.</b> One extra connection (and, in a cluster, messages broadcast on the cluster
 * bus, since RELEASE uses classic {@code PUBLISH}); for a channel nobody waited on within
 * {@link #LINGER}, a {@code SUBSCRIBE}, later an {@code UNSUBSCRIBE}, and one more ACQUIRE when the
 * subscription is acknowledged; one task on lettuce's event executors each time a channel falls
 * idle, to drop it after {@link #LINGER}. A sleeper woken by a release whose caller then gives up
 * (its deadline passed, or it was interrupted) takes that wake with it; the others try again when
 * their sleep runs out (the holder's PTTL, jittered). When the pub/sub connection is down, sleeping
 * falls back to a plain timed wait.
 *
 * <p>This class is threadsafe.
 */
public final class ReleaseSignals implements RedisLeaseConfig.Sleeper, AutoCloseable {
  /** How long a channel stays subscribed after its last sleeper left: 1 s. */
  public static final Duration LINGER = Duration.ofSeconds(1);

  private static final Logger log = LoggerFactory.getLogger(ReleaseSignals.class);

  private final StatefulRedisPubSubConnection<String, String> connection;
  private final boolean ownsConnection;
  private final Object lock = new Object();
  /** Per channel, its sleepers and its subscription; idle channels included. Guarded by {@link #lock}. */
  private final Map<String, Channel> channels = new HashMap<>();
  /** The channels nobody sleeps on, oldest idle first. Guarded by {@link #lock}. */
  private final LinkedHashMap<String, Long> idleSince = new LinkedHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong signalledWakeups = new AtomicLong();
  private final AtomicLong subscribedWakeups = new AtomicLong();
  private final AtomicLong timedWakeups = new AtomicLong();

  private static final class Channel {
    /** In the order they fell asleep. */
    final Set<CountDownLatch> sleepers = new LinkedHashSet<>();
    RedisFuture<Void> subscribed;
    /** A release announced while nobody slept: the next sleeper takes it and does not sleep. */
    boolean unclaimedSignal;
  }

  /**
   * A sleeper's place on its channel: the subscription, whether it was acknowledged when the
   * sleeper came, and whether the sleeper took an unclaimed signal.
   */
  private record Joined(RedisFuture<Void> subscribed, boolean alreadySubscribed, boolean signalled) {}

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

  /**
   * Sleeps on a connection the caller keeps and closes; {@link #close()} leaves it open (and
   * unsubscribes what this instance subscribed).
   */
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
    Joined joined = join(name, woken);
    try {
      if (joined.signalled()) {
        signalledWakeups.incrementAndGet();
        return;
      }
      if (!awaitSubscribed(joined.subscribed(), end)) {
        timedSleep(end - System.nanoTime());
        return;
      }
      if (!joined.alreadySubscribed()) {
        // A release before this acknowledgement reached nobody: try again now that one would.
        subscribedWakeups.incrementAndGet();
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

  private Joined join(String name, CountDownLatch woken) {
    synchronized (lock) {
      dropIdle(System.nanoTime());
      idleSince.remove(name);
      Channel channel = channels.computeIfAbsent(name, n -> new Channel());
      boolean already = isAcknowledged(channel.subscribed);
      if (already && channel.unclaimedSignal) {
        // Released between this waiter's contended reply and now: it must not sleep through that.
        // Not among the sleepers, so that no later release is spent on it.
        channel.unclaimedSignal = false;
        return new Joined(channel.subscribed, true, true);
      }
      channel.sleepers.add(woken);
      if (channel.subscribed == null || (channel.subscribed.isDone() && !already)) {
        try {
          // Commands on one connection run in order, so a pending UNSUBSCRIBE of this channel
          // cannot overtake this SUBSCRIBE.
          channel.subscribed = connection.async().subscribe(name);
        } catch (RuntimeException e) {
          log.debug("could not subscribe to a release channel: {}", e.toString());
          channel.subscribed = null;
        }
      }
      return new Joined(channel.subscribed, already, false);
    }
  }

  private static boolean isAcknowledged(RedisFuture<Void> subscribed) {
    return subscribed != null && subscribed.toCompletableFuture().isDone()
        && !subscribed.toCompletableFuture().isCompletedExceptionally();
  }

  private void leave(String name, CountDownLatch woken) {
    synchronized (lock) {
      Channel channel = channels.get(name);
      if (channel == null) {
        return;
      }
      channel.sleepers.remove(woken);
      if (!channel.sleepers.isEmpty()) {
        return;
      }
      if (isAcknowledged(channel.subscribed) && !closed.get()) {
        // The idle time is taken before the drop is scheduled, so that the drop finds it old enough.
        idleSince.put(name, System.nanoTime());
        if (scheduleDrop()) {
          return;
        }
        idleSince.remove(name);
      }
      // Never acknowledged, or nothing would end it later: end it now (an UNSUBSCRIBE also undoes a
      // late acknowledgement).
      channels.remove(name);
      unsubscribe(name, channel);
    }
  }

  /**
   * Asks lettuce's event executors to drop idle channels once {@link #LINGER} has passed, so that
   * an idle subscription ends even if nobody sleeps again; false if they refuse (shutting down).
   */
  private boolean scheduleDrop() {
    try {
      connection.getResources().eventExecutorGroup().schedule(() -> {
        synchronized (lock) {
          dropIdle(System.nanoTime());
        }
      }, LINGER.toMillis() + 1, TimeUnit.MILLISECONDS);
      return true;
    } catch (RuntimeException e) {
      log.debug("could not schedule the end of an idle subscription: {}", e.toString());
      return false;
    }
  }

  /** Unsubscribes the channels idle for at least {@link #LINGER}. Called with {@link #lock} held. */
  private void dropIdle(long now) {
    var oldest = idleSince.entrySet().iterator();
    while (oldest.hasNext()) {
      var idle = oldest.next();
      if (now - idle.getValue() < LINGER.toNanos()) {
        return;
      }
      oldest.remove();
      unsubscribe(idle.getKey(), channels.remove(idle.getKey()));
    }
  }

  private void unsubscribe(String name, Channel channel) {
    if (channel != null && channel.subscribed != null && !(closed.get() && ownsConnection)) {
      try {
        connection.async().unsubscribe(name);
      } catch (RuntimeException e) {
        log.debug("could not unsubscribe from a release channel: {}", e.toString());
      }
    }
  }

  private void signal(String name) {
    synchronized (lock) {
      Channel channel = channels.get(name);
      if (channel == null) {
        return;
      }
      if (channel.sleepers.isEmpty()) {
        channel.unclaimedSignal = true;
        return;
      }
      // One release frees the lease for one holder: wake the sleeper asleep longest.
      CountDownLatch first = channel.sleepers.iterator().next();
      channel.sleepers.remove(first);
      first.countDown();
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

  /** Sleeps that ended when their channel's subscription was acknowledged (the waiter then tries at once). */
  public long subscribedWakeups() {
    return subscribedWakeups.get();
  }

  /** Sleeps that ran their full length while subscribed. */
  public long timedWakeups() {
    return timedWakeups.get();
  }

  /** The channels someone is sleeping on now. */
  public int activeChannels() {
    synchronized (lock) {
      return channels.size() - idleSince.size();
    }
  }

  /** The sleepers on {@code channel} now; for tests. */
  int sleepersOn(String channel) {
    synchronized (lock) {
      Channel c = channels.get(channel);
      return c == null ? 0 : c.sleepers.size();
    }
  }

  /**
   * Wakes every sleeper (they try again at once) and closes the connection if this instance owns
   * it, or else unsubscribes the channels it subscribed. Later sleeps are plain timed waits.
   * Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    synchronized (lock) {
      channels.values().forEach(c -> c.sleepers.forEach(CountDownLatch::countDown));
      if (!ownsConnection) {
        channels.forEach(this::unsubscribe);
      }
      channels.clear();
      idleSince.clear();
    }
    if (ownsConnection) {
      connection.close();
    }
  }
}
