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
 *   <li><b>A release reaches a waiter of this instance</b> while the connection stays up. A sleep
 *       that finds its channel's subscription not yet acknowledged returns as soon as it is: a
 *       release before that had no one to tell, so the wait loop tries again at once. The
 *       subscription outlives that sleep by {@link #LINGER}, so the retry's own sleep finds it in
 *       place and waits for a message. A release announced while none of the channel's waiters
 *       sleeps (one is between its contended reply and its next sleep) is kept for the next
 *       sleeper, which then does not sleep.</li>
 *   <li><b>One release wakes one sleeper</b>, the one asleep longest: a release frees the lease for
 *       one holder, and waking every sleeper of the resource would send one ACQUIRE each for a
 *       single grant. A woken sleeper that loses to a waiter of another client goes back to sleep;
 *       the others sleep on. A sleeper that will not try again (interrupted, or woken just as its
 *       sleep ran out, perhaps at its caller's deadline) passes its wake to the next one, and so
 *       does one that stopped listening (its subscription was not confirmed in time).</li>
 * </ul>
 * An early return only makes the wait loop try again at once; it never grants anything, so a lost,
 * duplicated or spurious message cannot break safety. The spec's wait loop may try again at any
 * time, and these wakes only choose when.
 *
 * <p><b>The cost.</b> One extra connection (and, in a cluster, messages broadcast on the cluster
 * bus, since RELEASE uses classic {@code PUBLISH}); for a channel nobody waited on within
 * {@link #LINGER}, a {@code SUBSCRIBE}, later an {@code UNSUBSCRIBE}, and one more ACQUIRE when the
 * subscription is acknowledged; one more ACQUIRE whenever a kept signal turns out stale (the release
 * it announced went to a waiter that was awake, perhaps of this very instance); at most one pending
 * task on lettuce's event executors, to drop idle channels. A woken waiter whose try then fails
 * without an answer ({@code Unavailable}, {@code Overloaded}, {@code Indeterminate}) tries again
 * after {@code contentionRetryAfter}, and the others sleep on meanwhile. Messages published while
 * the pub/sub connection reconnects are lost, and a waiter asleep then sleeps its pause (the
 * holder's PTTL, jittered), as it would without signals; while the connection is down, sleeping is
 * a plain timed wait.
 *
 * <p>This class is threadsafe.
 */
public final class ReleaseSignals implements RedisLeaseConfig.Sleeper, AutoCloseable {
  /** How long a channel stays subscribed after its last sleeper left: 1 s. */
  public static final Duration LINGER = Duration.ofSeconds(1);

  private static final Logger log = LoggerFactory.getLogger(ReleaseSignals.class);

  private final StatefulRedisPubSubConnection<String, String> connection;
  private final boolean ownsConnection;
  private final long lingerNanos;
  private final RedisPubSubAdapter<String, String> listener = new RedisPubSubAdapter<>() {
    @Override
    public void message(String channel, String message) {
      signal(channel);
    }
  };
  private final Object lock = new Object();
  /** Whether a drop of idle channels is scheduled. Guarded by {@link #lock}. */
  private boolean dropScheduled;
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

  private ReleaseSignals(StatefulRedisPubSubConnection<String, String> connection, boolean ownsConnection,
      Duration linger) {
    this.connection = Arguments.notNull("connection", connection);
    this.ownsConnection = ownsConnection;
    this.lingerNanos = linger.toNanos();
    connection.addListener(listener);
  }

  /**
   * Sleeps on {@code connection}, which this instance owns: {@link #close()} closes it. Works for
   * standalone, Sentinel ({@code RedisClient.connectPubSub()}) and cluster
   * ({@code RedisClusterClient.connectPubSub()}) connections.
   */
  public static ReleaseSignals owning(StatefulRedisPubSubConnection<String, String> connection) {
    return new ReleaseSignals(connection, true, LINGER);
  }

  /** As {@link #owning}, with another linger: tests that must not depend on how fast they run. */
  static ReleaseSignals owning(StatefulRedisPubSubConnection<String, String> connection, Duration linger) {
    return new ReleaseSignals(connection, true, linger);
  }

  /**
   * Sleeps on a connection the caller keeps and closes; {@link #close()} leaves it open and
   * unsubscribes the release channels this instance subscribed. An {@code UNSUBSCRIBE} is the
   * connection's, so do not subscribe the same channels on it yourself.
   */
  public static ReleaseSignals over(StatefulRedisPubSubConnection<String, String> connection) {
    return new ReleaseSignals(connection, false, LINGER);
  }

  /** As {@link #over}, with another linger: tests that must not depend on how fast they run. */
  static ReleaseSignals over(StatefulRedisPubSubConnection<String, String> connection, Duration linger) {
    return new ReleaseSignals(connection, false, linger);
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
    boolean joinedSleepers = true;
    boolean passOn = false;
    try {
      if (joined.signalled()) {
        signalledWakeups.incrementAndGet();
        return;
      }
      if (!awaitSubscribed(joined.subscribed(), end)) {
        // Out of the sleepers first: a release must wake someone who listens.
        leave(name, woken);
        joinedSleepers = false;
        passOn = woken.getCount() == 0;
        timedWakeups.incrementAndGet();
        timedSleep(end - System.nanoTime());
        return;
      }
      if (!joined.alreadySubscribed()) {
        // A release before this acknowledgement reached nobody: try again now that one would. Out of
        // the sleepers before it counts, so that whoever sees the count sees this sleep over.
        leave(name, woken);
        joinedSleepers = false;
        subscribedWakeups.incrementAndGet();
        return;
      }
      if (woken.await(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        signalledWakeups.incrementAndGet();
        // Woken as its sleep ran out: the wait loop may be at its deadline and not try again, so
        // another sleeper gets the wake too (at worst one more ACQUIRE).
        passOn = System.nanoTime() - end >= 0;
      } else {
        timedWakeups.incrementAndGet();
      }
    } catch (InterruptedException e) {
      // An interrupted wait loop does not try again: a wake it had goes to the next sleeper.
      passOn = woken.getCount() == 0;
      throw e;
    } finally {
      if (joinedSleepers) {
        leave(name, woken);
      }
      if (passOn) {
        signal(name);
      }
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
      if (closed.get()) {
        // Closed after sleep() looked: no subscription any more, a timed wait.
        return new Joined(null, false, false);
      }
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
      if (isAcknowledged(channel.subscribed) && !closed.get() && scheduleDrop()) {
        idleSince.put(name, System.nanoTime());
        return;
      }
      // Never acknowledged, or nothing would end it later: end it now (an UNSUBSCRIBE also undoes a
      // late acknowledgement).
      channels.remove(name);
      unsubscribe(name, channel);
    }
  }

  /**
   * Makes sure a drop of idle channels is scheduled on lettuce's event executors, so that an idle
   * subscription ends even if nobody sleeps again; false if they refuse (shutting down). One drop
   * is pending at a time; it schedules the next while channels are still idle. Called with
   * {@link #lock} held.
   */
  private boolean scheduleDrop() {
    if (dropScheduled) {
      return true;
    }
    if (!scheduleDropIn(lingerNanos)) {
      return false;
    }
    dropScheduled = true;
    return true;
  }

  private boolean scheduleDropIn(long nanos) {
    try {
      connection.getResources().eventExecutorGroup().schedule(this::dropScheduledNow,
          TimeUnit.NANOSECONDS.toMicros(nanos) + 1, TimeUnit.MICROSECONDS);
      return true;
    } catch (RuntimeException e) {
      log.debug("could not schedule the end of an idle subscription: {}", e.toString());
      return false;
    }
  }

  private void dropScheduledNow() {
    synchronized (lock) {
      long now = System.nanoTime();
      dropIdle(now);
      dropScheduled = false;
      if (!idleSince.isEmpty() && !closed.get()) {
        long oldest = idleSince.values().iterator().next();
        if (scheduleDropIn(Math.max(0, oldest + lingerNanos - now))) {
          dropScheduled = true;
        } else {
          // Nothing would drop them later: drop them now.
          idleSince.keySet().forEach(name -> unsubscribe(name, channels.remove(name)));
          idleSince.clear();
        }
      }
    }
  }

  /** Unsubscribes the channels idle for at least the linger. Called with {@link #lock} held. */
  private void dropIdle(long now) {
    var oldest = idleSince.entrySet().iterator();
    while (oldest.hasNext()) {
      var idle = oldest.next();
      if (now - idle.getValue() < lingerNanos) {
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
    connection.removeListener(listener);
    if (ownsConnection) {
      connection.close();
    }
  }
}
