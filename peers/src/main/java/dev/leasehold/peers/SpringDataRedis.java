package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockLibrary.Endpoint;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What the two ports over Spring Data Redis share ({@link SpringRegistryPort}, {@link ShedLockPort}):
 * a started connection factory to the kit's endpoint.
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
}
