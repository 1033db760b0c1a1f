package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockLibrary.Endpoint;
import dev.leasehold.testkit.blackbox.LockLibrary.ServerLock;
import dev.leasehold.testkit.blackbox.ServerView;
import java.util.Optional;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What the two ports over Spring Data Redis share ({@link SpringRegistryPort}, {@link ShedLockPort}):
 * a started connection factory to the kit's endpoint, and the read of a lock kept as a string key
 * whose value is its holder.
 *
 * <p>This class is stateless and threadsafe.
 */
final class SpringDataRedis {
  private SpringDataRedis() {}

  /** A started Lettuce connection factory to {@code endpoint}, with its command timeout; destroy it after use. */
  static LettuceConnectionFactory connect(Endpoint endpoint) {
    LettuceConnectionFactory factory = new LettuceConnectionFactory(
        new RedisStandaloneConfiguration(endpoint.host(), endpoint.port()),
        LettuceClientConfiguration.builder().commandTimeout(endpoint.commandTimeout()).build());
    factory.afterPropertiesSet();
    factory.start();
    return factory;
  }

  /** A lock kept as a string at {@code key} holding its holder's identity. */
  static ServerLock readStringLock(ServerView redis, String key) {
    String holder = redis.get(key);
    return holder == null ? ServerLock.FREE : new ServerLock(Optional.of(holder), redis.pttl(key));
  }
}
