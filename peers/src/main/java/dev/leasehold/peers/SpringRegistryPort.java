package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockClient;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.blackbox.ServerView;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * Spring Integration 7.1 {@code RedisLockRegistry} (spin lock, renewal by call): one registry per
 * client, since the registry is the owner on the server. The lock is a string at
 * {@code <registryKey>:<lock>} holding the registry's client id, which the registry does not expose:
 * the port reads it by reflection. An unlock that finds the key expired or taken throws
 * {@code ConcurrentModificationException} and deletes nothing: "not released".
 *
 * <p>This class is threadsafe.
 */
public record SpringRegistryPort() implements LockLibrary {
  static final String REGISTRY_KEY = "peers";

  @Override public String name() {
    return "spring-redislockregistry";
  }

  @Override public Traits traits() {
    return new Traits(false, true, false, false);
  }

  @Override public String key(String resource) {
    return REGISTRY_KEY + ":" + resource;
  }

  @Override public ServerLock read(ServerView redis, String key) {
    return ServerLock.ofStringKey(redis, key);
  }

  @Override public LockClient connect(Endpoint endpoint) {
    LettuceConnectionFactory factory = SpringDataRedis.connect(endpoint);
    RedisLockRegistry registry = new RedisLockRegistry(factory, REGISTRY_KEY);
    return new LockClient() {
      @Override public Grant tryAcquire(String resource, Duration ttl) throws InterruptedException {
        DistributedLock lock = registry.obtain(resource);
        return lock.tryLock(Duration.ZERO, ttl) ? Grant.Acquired.of(ttl) : new Grant.NotAcquired();
      }

      @Override public boolean renew(String resource, Duration ttl) {
        try {
          registry.renewLock(resource, ttl);
          return true;
        } catch (IllegalStateException notOurs) {
          return false;
        }
      }

      @Override public boolean release(String resource) {
        try {
          registry.obtain(resource).unlock();
          return true;
        } catch (ConcurrentModificationException | IllegalStateException notOurs) {
          return false;
        }
      }

      @Override public Optional<String> holderId(String resource) {
        return Optional.of(clientId(registry));
      }

      @Override public void close() {
        registry.destroy();
        factory.destroy();
      }
    };
  }

  private static String clientId(RedisLockRegistry registry) {
    try {
      Field field = RedisLockRegistry.class.getDeclaredField("clientId");
      field.setAccessible(true);
      return (String) field.get(registry);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("RedisLockRegistry has no clientId field any more", e);
    }
  }
}
