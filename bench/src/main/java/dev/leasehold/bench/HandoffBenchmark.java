package dev.leasehold.bench;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.redis.ReleaseSignals;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Handoff latency: the time from the holder's release to the waiter's successful acquire. Before
 * each measured invocation (outside the measurement) the benchmark thread holds the lease and a
 * waiter thread, with its own client, is blocked in a waiting acquire and provably subscribed to
 * the release channel ({@code PUBSUB NUMSUB}, and for the adapter its sleeper's own count); the invocation releases and returns when the waiter
 * reports its grant. The adapter side is {@link RedisLeases} with its default {@link ReleaseSignals}
 * (the wait loop sleeps by the holder's PTTL and is woken by RELEASE's {@code PUBLISH}); Redisson
 * uses {@code tryLock(wait, lease)}, which is woken by {@code unlock}'s publish the same way.
 *
 * <p>This class is not threadsafe; it runs on one benchmark thread.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class HandoffBenchmark {
  static final Duration TTL = Duration.ofSeconds(30);
  /** Far above any handoff; a waiter that misses the signal fails the benchmark instead of looking slow. */
  static final Duration WAIT = Duration.ofSeconds(20);
  static final Duration SETUP_TIMEOUT = Duration.ofSeconds(10);

  /** What both variants share: a raw connection to watch the release channel and the waiter thread. */
  abstract static class Handoff {
    RedisClient watchClient;
    StatefulRedisConnection<String, String> watchConnection;
    RedisCommands<String, String> watch;
    ExecutorService waiterThread;

    void openWatch() {
      watchClient = RedisClient.create(BenchRedis.uri());
      watchConnection = watchClient.connect();
      watch = watchConnection.sync();
      waiterThread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "handoff-waiter");
        t.setDaemon(true);
        return t;
      });
    }

    void closeWatch() {
      waiterThread.shutdownNow();
      watchConnection.close();
      watchClient.shutdown();
    }

    long subscribers(String channel) {
      return watch.pubsubNumsub(channel).getOrDefault(channel, 0L);
    }

    /**
     * The server has the waiter's subscription. Called only after {@link #awaitNoSubscriber} and the
     * holder's grant, so the subscription is this waiter's, made after its first try found the lease held.
     */
    void awaitWaiting(String channel) {
      await(() -> subscribers(channel) >= 1, "waiter subscribed to " + channel);
    }

    /** The previous waiter's UNSUBSCRIBE is through, so a stale subscription cannot be mistaken for the next one. */
    void awaitNoSubscriber(String channel) {
      await(() -> subscribers(channel) == 0, "previous waiter unsubscribed from " + channel);
    }

    static void await(BooleanSupplier condition, String what) {
      long deadline = System.nanoTime() + SETUP_TIMEOUT.toNanos();
      while (!condition.getAsBoolean()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("handoff setup timed out waiting for: " + what);
        }
        Thread.onSpinWait();
        try {
          Thread.sleep(0, 100_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }

    static <T> T get(Future<T> future) {
      try {
        return future.get(WAIT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("handoff waiter failed", e);
      }
    }
  }

  /**
   * Holder and waiter are two {@link RedisLeases} assemblies (the production entry point), each with
   * its own connections; the waiter's wait loop sleeps on its {@link ReleaseSignals}.
   */
  @State(Scope.Thread)
  public static class AdapterHandoff extends Handoff {
    RedisLeases holderLeases;
    RedisLeases waiterLeases;
    DistributedLeasePort holder;
    DistributedLeasePort waiterPort;
    String digest;
    String channel;
    LeaseHandle held;
    Future<AcquireOutcome> waiting;
    LeaseHandle waiterHandle;
    long operations;

    @Setup(Level.Trial)
    public void open() {
      openWatch();
      holderLeases = RedisLeases.builder(BenchRedis.uri()).commandTimeout(AcquireReleaseBenchmark.COMMAND_TIMEOUT).build();
      waiterLeases = RedisLeases.builder(BenchRedis.uri()).commandTimeout(AcquireReleaseBenchmark.COMMAND_TIMEOUT).build();
      if (waiterLeases.releaseSignals().isEmpty()) {
        throw new IllegalStateException("RedisLeases without release signals: the handoff would wait out the PTTL");
      }
      holder = holderLeases.port();
      waiterPort = waiterLeases.port();
      digest = BenchRedis.newDigest();
      channel = holderLeases.keys(BenchRedis.PURPOSE, digest).releaseChannel();
    }

    @Setup(Level.Invocation)
    public void holdAndWait() {
      if (waiterHandle != null) {
        waiterHandle.release();
        waiterHandle = null;
      }
      AcquireOutcome outcome = holder.tryAcquire(
          LeaseRequest.once(BenchRedis.PURPOSE, digest, TTL, holder.newAttempt("holder-" + operations)));
      if (!(outcome instanceof AcquireOutcome.Acquired granted)) {
        throw new IllegalStateException("handoff holder acquire: " + outcome);
      }
      held = granted.handle();
      String operationId = "waiter-" + (operations++);
      waiting = waiterThread.submit(() -> waiterPort.tryAcquire(
          new LeaseRequest(BenchRedis.PURPOSE, digest, WAIT, TTL, waiterPort.newAttempt(operationId))));
      // The waiter's subscription may outlive its sleeps (ReleaseSignals.LINGER), so the server's
      // count alone does not say the waiter sleeps: its ReleaseSignals does.
      ReleaseSignals signals = waiterLeases.releaseSignals().orElseThrow();
      await(() -> signals.activeChannels() == 1 && subscribers(channel) == 1, "waiter asleep on " + channel);
    }

    @TearDown(Level.Trial)
    public void close() {
      if (waiterHandle != null) {
        waiterHandle.release();
      }
      closeWatch();
      waiterLeases.close();
      holderLeases.close();
    }
  }

  /** Holder and waiter are two Redisson clients; Redisson locks belong to a thread, so the waiter unlocks on its own. */
  @State(Scope.Thread)
  public static class RedissonHandoff extends Handoff {
    RedissonClient holderClient;
    RedissonClient waiterClient;
    RLock holderLock;
    RLock waiterLock;
    String channel;
    Future<Boolean> waiting;
    boolean waiterHolds;

    @Setup(Level.Trial)
    public void open() {
      openWatch();
      holderClient = redisson();
      waiterClient = redisson();
      String name = "bench:redisson-handoff:" + BenchRedis.newDigest();
      holderLock = holderClient.getLock(name);
      waiterLock = waiterClient.getLock(name);
      channel = "redisson_lock__channel:{" + name + "}";
    }

    private static RedissonClient redisson() {
      Config config = new Config();
      config.useSingleServer().setAddress(BenchRedis.address())
          .setTimeout((int) AcquireReleaseBenchmark.COMMAND_TIMEOUT.toMillis());
      return Redisson.create(config);
    }

    @Setup(Level.Invocation)
    public void holdAndWait() {
      if (waiterHolds) {
        get(waiterThread.submit(() -> {
          waiterLock.unlock();
          return true;
        }));
        waiterHolds = false;
      }
      awaitNoSubscriber(channel);
      try {
        if (!holderLock.tryLock(0, TTL.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("handoff holder tryLock failed");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      waiting = waiterThread.submit(() -> waiterLock.tryLock(WAIT.toMillis(), TTL.toMillis(), TimeUnit.MILLISECONDS));
      awaitWaiting(channel);
    }

    @TearDown(Level.Trial)
    public void close() {
      if (waiterHolds) {
        get(waiterThread.submit(() -> {
          waiterLock.unlock();
          return true;
        }));
      }
      closeWatch();
      holderClient.shutdown();
      waiterClient.shutdown();
    }
  }

  @Benchmark
  public LeaseHandle adapter(AdapterHandoff h) {
    ReleaseOutcome released = h.held.release();
    if (!(released instanceof ReleaseOutcome.Released)) {
      throw new IllegalStateException("handoff holder release: " + released);
    }
    AcquireOutcome outcome = Handoff.get(h.waiting);
    if (!(outcome instanceof AcquireOutcome.Acquired granted)) {
      throw new IllegalStateException("handoff waiter: " + outcome);
    }
    h.waiterHandle = granted.handle();
    return h.waiterHandle;
  }

  @Benchmark
  public boolean redisson(RedissonHandoff h) {
    h.holderLock.unlock();
    if (!Handoff.get(h.waiting)) {
      throw new IllegalStateException("handoff waiter: Redisson tryLock(wait, lease) timed out");
    }
    h.waiterHolds = true;
    return true;
  }
}
