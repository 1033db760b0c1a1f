package dev.leasehold.testkit.redis;

import io.lettuce.core.RedisURI;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * The Redis server a test class runs against, chosen in this order: {@code redis-server} on PATH,
 * the binary bundled by embedded-redis, a Testcontainers container when Docker is available, or
 * {@code LEASEHOLD_REDIS_URL}. Only loopback targets are accepted. When none is available the
 * test fails: real-server tests never skip silently.
 *
 * <p>This class is not threadsafe.
 */
public final class RedisServer implements AutoCloseable {
  private final RedisURI uri;
  private final RedisProcess process;
  private final GenericContainer<?> container;

  private RedisServer(RedisURI uri, RedisProcess process, GenericContainer<?> container) {
    this.uri = uri;
    this.process = process;
    this.container = container;
  }

  /** Starts (or finds) a server for one test class. */
  public static RedisServer start(String name) {
    if (RedisBinary.locate().isPresent()) {
      RedisProcess process = RedisProcess.start(name);
      return new RedisServer(process.uri(), process, null);
    }
    if (dockerAvailable()) {
      GenericContainer<?> container = new GenericContainer<>("redis:7.2").withExposedPorts(6379);
      container.start();
      RedisURI uri = RedisURI.create("redis://" + container.getHost() + ":" + container.getMappedPort(6379));
      requireLoopback(uri);
      return new RedisServer(uri, null, container);
    }
    String url = System.getenv("LEASEHOLD_REDIS_URL");
    if (url != null && !url.isBlank()) {
      RedisURI uri = RedisURI.create(url);
      requireLoopback(uri);
      return new RedisServer(uri, null, null);
    }
    throw new IllegalStateException(
        "no Redis: install redis-server, use a platform embedded-redis ships for, start Docker, or set LEASEHOLD_REDIS_URL");
  }

  /**
   * Starts the redis-server binary embedded-redis bundles (Redis 6.2), even when another is on
   * PATH: for tests that must also run on the oldest Redis the library supports.
   *
   * @throws IllegalStateException when embedded-redis bundles no binary for this platform
   */
  public static RedisServer startBundled(String name) {
    java.nio.file.Path binary = RedisBinary.bundled().orElseThrow(
        () -> new IllegalStateException("embedded-redis bundles no redis-server for this platform"));
    RedisProcess process = RedisProcess.startWith(binary, name);
    return new RedisServer(process.uri(), process, null);
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  private static void requireLoopback(RedisURI uri) {
    try {
      for (InetAddress address : InetAddress.getAllByName(uri.getHost())) {
        if (!address.isLoopbackAddress()) {
          throw new IllegalStateException("tests only target loopback addresses, not " + uri.getHost());
        }
      }
    } catch (UnknownHostException e) {
      throw new IllegalStateException("unknown Redis host " + uri.getHost(), e);
    }
  }

  public RedisURI uri() {
    return uri;
  }

  /** The process, when this test owns one it can kill, pause and restart. */
  public Optional<RedisProcess> process() {
    return Optional.ofNullable(process);
  }

  /** The process, for tests that break the server; fails if the server is not ours to break. */
  public RedisProcess ownedProcess() {
    return process().orElseThrow(() -> new IllegalStateException("this test needs a redis-server it started itself"));
  }

  @Override
  public void close() {
    if (process != null) {
      process.close();
    }
    if (container != null) {
      container.stop();
    }
  }
}
