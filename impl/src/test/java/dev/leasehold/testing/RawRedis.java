package dev.leasehold.testing;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A test class's own server ({@link TestRedis}) with a plain lettuce connection beside it, to read
 * or change the lease keys behind the adapter's back. Started in {@code @BeforeAll}, closed in
 * {@code @AfterAll}.
 *
 * <p>This class is not threadsafe; its {@link #commands()} are (lettuce's synchronous API).
 */
public final class RawRedis implements AutoCloseable {
  private final TestRedis server;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  private RawRedis(TestRedis server) {
    this.server = server;
    this.client = RedisClient.create(server.uri());
    this.connection = client.connect();
  }

  /** Starts (or finds) a server for one test class, see {@link TestRedis#start}. */
  public static RawRedis start(String name) {
    return new RawRedis(TestRedis.start(name));
  }

  public RedisURI uri() {
    return server.uri();
  }

  /** The side client, for connections of a test's own (pub/sub). */
  public RedisClient client() {
    return client;
  }

  /** Commands on the side connection. */
  public RedisCommands<String, String> commands() {
    return connection.sync();
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
    server.close();
  }
}
