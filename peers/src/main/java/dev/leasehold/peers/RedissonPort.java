package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockClient;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.blackbox.ServerView;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson 4.7 {@code RLock} with a lease time, or in watchdog mode (no lease time: the watchdog
 * keeps the key for {@link #WATCHDOG_TIMEOUT} and renews it every third of that). Redisson keeps the
 * lock as a hash at the lock's name, one field {@code <client id>:<thread id>} holding the hold
 * count. It has no renew call and no client-side validity; the kit never re-enters a lock.
 *
 * <p>This class is threadsafe.
 */
// docs example: begin (docs/black-box.md shows the whole port)
public record RedissonPort(boolean watchdog) implements LockLibrary {
  static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(300);

  @Override public String name() {
    return watchdog ? "redisson-rlock-watchdog" : "redisson-rlock-lease";
  }

  @Override public Traits traits() {
    return Traits.NONE;
  }

  @Override public String key(String resource) {
    return resource;
  }

  @Override public ServerLock read(ServerView redis, String key) {
    Map<String, String> fields = redis.hgetall(key);
    return fields.isEmpty() ? ServerLock.FREE
        : new ServerLock(Optional.of(fields.keySet().iterator().next()), redis.pttl(key));
  }

  @Override public LockClient connect(Endpoint endpoint) {
    RedissonClient redisson = Redisson.create(config(endpoint));
    return new LockClient() {
      @Override public Grant tryAcquire(String resource, Duration ttl) throws InterruptedException {
        RLock lock = redisson.getLock(resource);
        boolean acquired = watchdog ? lock.tryLock(0, TimeUnit.MILLISECONDS)
            : lock.tryLock(0, ttl.toMillis(), TimeUnit.MILLISECONDS);
        return acquired ? Grant.Acquired.of(watchdog ? WATCHDOG_TIMEOUT : ttl) : new Grant.NotAcquired();
      }

      @Override public boolean release(String resource) {
        try {
          redisson.getLock(resource).unlock();
          return true;
        } catch (IllegalMonitorStateException notHeld) {
          return false;
        }
      }

      @Override public Optional<String> holderId(String resource) {
        return Optional.of(redisson.getId() + ":" + Thread.currentThread().getId());
      }

      @Override public void close() {
        redisson.shutdown(0, 2, TimeUnit.SECONDS);
      }
    };
  }

  /** One small connection pool through the kit's proxy, the kit's timeout, one retry. */
  static Config config(Endpoint endpoint) {
    Config config = new Config().setLockWatchdogTimeout(WATCHDOG_TIMEOUT.toMillis()).setNettyThreads(2);
    config.useSingleServer().setAddress(endpoint.uri()).setTimeout((int) endpoint.commandTimeout().toMillis())
        .setRetryAttempts(1).setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
        .setSubscriptionConnectionMinimumIdleSize(0).setSubscriptionConnectionPoolSize(1);
    return config;
  }
}
// docs example: end
