package dev.leasehold.bench;

import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.RedisURI;
import java.util.UUID;

/**
 * The redis-server every benchmark of one run talks to. {@link BenchMain} starts one server for the
 * whole run and hands its URI to each forked benchmark JVM in {@value #URI_PROPERTY}; a benchmark
 * started some other way (the JMH command line, an IDE) starts its own server on loopback and stops
 * it when the JVM exits.
 *
 * <p>This class is threadsafe.
 */
public final class BenchRedis {
  /** The system property carrying the server URI into forked benchmark JVMs. */
  public static final String URI_PROPERTY = "leasehold.bench.redisUri";
  /** The purpose every benchmark lease uses. */
  public static final String PURPOSE = "bench";

  private static RedisURI uri;

  private BenchRedis() {}

  /** The server's URI; starts a private server when none was handed in. Loopback only. */
  public static synchronized RedisURI uri() {
    if (uri != null) {
      return uri;
    }
    String given = System.getProperty(URI_PROPERTY);
    if (given != null && !given.isBlank()) {
      RedisURI parsed = RedisURI.create(given);
      if (!"127.0.0.1".equals(parsed.getHost()) && !"localhost".equals(parsed.getHost())) {
        throw new IllegalStateException("benchmarks only target loopback, not " + parsed.getHost());
      }
      uri = parsed;
      return uri;
    }
    RedisProcess redis = RedisProcess.start("bench-fork");
    Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "bench-redis-stop"));
    uri = redis.uri();
    return uri;
  }

  /** The {@code redis://host:port} form Redisson wants. */
  public static String address() {
    RedisURI u = uri();
    return "redis://" + u.getHost() + ":" + u.getPort();
  }

  /** A fresh resource digest, {@code sha256:<64 hex>}, so no two benchmark threads contend. */
  public static String newDigest() {
    return dev.leasehold.lease.ResourceDigests.sha256(UUID.randomUUID().toString());
  }

}
