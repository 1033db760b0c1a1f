package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockClient;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.blackbox.ServerView;
import java.lang.reflect.Field;
import java.util.Optional;
import java.util.OptionalLong;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * ShedLock 7.2 {@code RedisLockProvider} (Spring Data Redis), with {@code safeUpdate} as given (off
 * by default), driven as {@link ShedLockClient} says. The lock is a string at
 * {@code job-lock:default:<name>} holding a value made for each acquisition, which the lock does not
 * expose: the port reads it by reflection.
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
    return ServerLock.ofStringKey(redis, key);
  }

  @Override public LockClient connect(Endpoint endpoint) {
    LettuceConnectionFactory factory = SpringDataRedis.connect(endpoint);
    RedisLockProvider provider = new RedisLockProvider.Builder(factory).safeUpdate(safeUpdate).build();
    // Its unlock says nothing of what it did: every unlock counts as "released".
    return new ShedLockClient(provider, OptionalLong::empty, lock -> Optional.ofNullable(lock).map(ShedLockPort::value),
        () -> true, factory::destroy);
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
