package dev.leasehold.chaos;

import dev.leasehold.redis.LeaseKeys;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Reads the lease key, its PTTL and the fencing counter in one script, every few ms, on its own
 * connection straight to the server (never through the proxy), and records each read with the
 * instants before and after it. The server's truth for the checker.
 *
 * <p>This class is threadsafe; one thread samples.
 */
final class Sampler implements AutoCloseable {
  private static final String SCRIPT = "local v = redis.call('GET', KEYS[1]) "
      + "local p = redis.call('PTTL', KEYS[1]) "
      + "local f = redis.call('GET', KEYS[2]) "
      + "return {v or '', p, f or '0'}";

  private final RedisClient client;
  /** The server to sample; asked again on every reconnect, so a run can follow a failover. */
  private final Supplier<RedisURI> target;
  private final History history;
  private final LeaseKeys keys;
  private final Supplier<String> serverLabel;
  private final long periodMs;
  private final Thread thread;
  private volatile boolean stop;
  private volatile StatefulRedisConnection<String, String> connection;

  Sampler(RedisURI uri, History history, LeaseKeys keys, Supplier<String> serverLabel, long periodMs) {
    this(() -> uri, history, keys, serverLabel, periodMs);
  }

  /** Samples the server {@code target} names at each (re)connect: a cluster node that may change. */
  Sampler(Supplier<RedisURI> target, History history, LeaseKeys keys, Supplier<String> serverLabel, long periodMs) {
    this.target = target;
    this.client = RedisClient.create();
    client.setOptions(ClientOptions.builder().autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(Duration.ofMillis(200))).build());
    this.history = history;
    this.keys = keys;
    this.serverLabel = serverLabel;
    this.periodMs = periodMs;
    this.thread = new Thread(this::loop, "chaos-sampler");
    thread.setDaemon(true);
  }

  Sampler start() {
    thread.start();
    return this;
  }

  /** Waits (at most 5 s) for the first sample, so a run does not begin unobserved. */
  Sampler awaitFirst() {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (history.of(History.Sample.class).isEmpty() && System.nanoTime() < deadline) {
      Worker.pause(Duration.ofMillis(5));
    }
    return this;
  }

  private void loop() {
    int failures = 0;
    while (!stop) {
      try {
        if (connection == null || failures >= 3) {
          // A fresh connection asks Sentinel for the primary at once, instead of waiting out
          // lettuce's reconnect backoff after the primary died.
          StatefulRedisConnection<String, String> old = connection;
          connection = null;
          failures = 0;
          if (old != null) {
            old.closeAsync();
          }
          RedisURI uri = target.get();
          // Not RedisURI.builder(uri): it drops a Sentinel URI's sentinels (see Gateways).
          uri.setTimeout(Duration.ofMillis(200));
          connection = client.connect(uri);
          connection.setTimeout(Duration.ofMillis(200));
        }
        long sent = history.now();
        List<Object> r = connection.sync().eval(SCRIPT, ScriptOutputType.MULTI, keys.lease(), keys.fence());
        long at = history.now();
        String value = (String) r.get(0);
        String holder = value.isEmpty() ? null : value.substring(value.indexOf(':') + 1);
        long pttl = (Long) r.get(1);
        long counter = Long.parseLong((String) r.get(2));
        history.add(new History.Sample(sent, at, holder, pttl, counter, serverLabel.get()));
        failures = 0;
      } catch (RuntimeException e) {
        failures++;
        // Unreachable or slow: no sample. The checker only trusts fast ones anyway.
      }
      Worker.pause(Duration.ofMillis(periodMs));
    }
  }

  @Override
  public void close() {
    stop = true;
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (connection != null) {
      connection.close();
    }
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
