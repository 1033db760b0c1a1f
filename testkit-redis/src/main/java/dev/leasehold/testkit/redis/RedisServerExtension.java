package dev.leasehold.testkit.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's own server ({@link RedisServer}: {@code redis-server} on a free loopback port, the
 * embedded-redis binary, a Testcontainers container, or {@code LEASEHOLD_REDIS_URL}) with a plain
 * lettuce connection beside it, to read or change keys behind the code under test.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension REDIS = new RedisServerExtension("my-test");
 * }</pre>
 *
 * <p>As an extension it starts before the class's first test and stops (the process by PID) after
 * its last; {@link #start(String)} does the same by hand for code that is not a JUnit class.
 *
 * <p>This class is not threadsafe; its {@link #commands()} are (lettuce's synchronous API).
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  private final String name;
  private RedisServer server;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;

  /** An extension that starts a server named {@code name} (its log and data folder) for the class. */
  public RedisServerExtension(String name) {
    this.name = name;
  }

  /** Starts (or finds) a server now, see {@link RedisServer#start}. */
  public static RedisServerExtension start(String name) {
    RedisServerExtension e = new RedisServerExtension(name);
    e.open();
    return e;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    open();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  private void open() {
    if (server == null) {
      server = RedisServer.start(name);
      client = RedisClient.create(server.uri());
      connection = client.connect();
    }
  }

  public RedisURI uri() {
    return started().uri();
  }

  /** The server, e.g. its process to kill, pause or restart. */
  public RedisServer server() {
    return started();
  }

  /** The side client, for connections of a test's own (pub/sub). */
  public RedisClient client() {
    started();
    return client;
  }

  /** Commands on the side connection. */
  public RedisCommands<String, String> commands() {
    started();
    return connection.sync();
  }

  private RedisServer started() {
    if (server == null) {
      throw new IllegalStateException("the Redis server of " + name + " is not started (register the extension or call start)");
    }
    return server;
  }

  /** Stops the server; idempotent. */
  @Override
  public void close() {
    if (server == null) {
      return;
    }
    try {
      connection.close();
      client.shutdown();
    } finally {
      server.close();
      server = null;
    }
  }
}
