package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockClient;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.blackbox.ServerView;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Redisson 4.7 {@code RFencedLock} in watchdog mode: the lock as {@link RedissonPort} keeps it, and
 * a token from {@code INCR redisson_lock_token:{name}} with every grant. Redisson promises that the
 * token grows; checking it is the guarded store's job.
 *
 * <p>This class is threadsafe.
 */
public record RedissonFencedPort() implements LockLibrary {
  @Override public String name() {
    return "redisson-fencedlock";
  }

  @Override public Traits traits() {
    return new Traits(true, false, false, false);
  }

  @Override public String key(String resource) {
    return resource;
  }

  @Override public ServerLock read(ServerView redis, String key) {
    return new RedissonPort(true).read(redis, key);
  }

  @Override public LockClient connect(Endpoint endpoint) {
    RedissonClient redisson = Redisson.create(RedissonPort.config(endpoint));
    return new LockClient() {
      @Override public Grant tryAcquire(String resource, Duration ttl) {
        Long token = redisson.getFencedLock(resource).tryLockAndGetToken(0, TimeUnit.MILLISECONDS);
        return token == null ? new Grant.NotAcquired()
            : new Grant.Acquired(RedissonPort.WATCHDOG_TIMEOUT, OptionalLong.of(token));
      }

      @Override public boolean release(String resource) {
        try {
          redisson.getFencedLock(resource).unlock();
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
}
