package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockClient;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.blackbox.ServerView;
import java.lang.reflect.Field;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * ShedLock 7.2 {@code RedisLockProvider} (Spring Data Redis), with {@code safeUpdate} as given (off
 * by default). {@code lockAtMostFor} is the TTL, {@code lockAtLeastFor} zero; renewing is
 * {@code extend}. The lock is a string at {@code job-lock:default:<name>} holding a value made for
 * each acquisition, which the lock does not expose: the port reads it by reflection. ShedLock's
 * unlock reports nothing, so every unlock counts as "released".
 *
 * <p>This class is threadsafe.
 */
public record ShedLockPort(boolean safeUpdate) implements LockLibrary {
  @Override public String name() {
    return safeUpdate ? "shedlock-safe-update" : "shedlock";
  }

  @Override public Traits traits() {
    return new Traits(false, true, false, false);
  }

  @Override public String key(String resource) {
    return "job-lock:default:" + resource;
  }

  @Override public ServerLock read(ServerView redis, String key) {
    return SpringDataRedis.readStringLock(redis, key);
  }

  @Override public LockClient connect(Endpoint endpoint) {
    LettuceConnectionFactory factory = SpringDataRedis.connect(endpoint);
    RedisLockProvider provider = new RedisLockProvider.Builder(factory).safeUpdate(safeUpdate).build();
    Map<String, SimpleLock> held = new HashMap<>();
    return new LockClient() {
      @Override public Grant tryAcquire(String resource, Duration ttl) {
        held.remove(resource);
        Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), resource, ttl, Duration.ZERO));
        lock.ifPresent(l -> held.put(resource, l));
        return lock.isPresent() ? Grant.Acquired.of(ttl) : new Grant.NotAcquired();
      }

      @Override public boolean renew(String resource, Duration ttl) {
        // extend() ends the old lock object either way; a failed one leaves nothing to unlock.
        SimpleLock lock = held.remove(resource);
        if (lock == null) {
          return false;
        }
        Optional<SimpleLock> extended = lock.extend(ttl, Duration.ZERO);
        extended.ifPresent(l -> held.put(resource, l));
        return extended.isPresent();
      }

      @Override public boolean release(String resource) {
        SimpleLock lock = held.remove(resource);
        if (lock == null) {
          return false;
        }
        lock.unlock();
        return true;
      }

      @Override public Optional<String> holderId(String resource) {
        return Optional.ofNullable(held.get(resource)).map(ShedLockPort::value);
      }

      @Override public void close() {
        factory.destroy();
      }
    };
  }

  private static String value(SimpleLock lock) {
    try {
      Field field = lock.getClass().getDeclaredField("value");
      field.setAccessible(true);
      return (String) field.get(lock);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("ShedLock's Redis lock has no value field any more", e);
    }
  }
}
