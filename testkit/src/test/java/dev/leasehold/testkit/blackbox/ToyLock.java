package dev.leasehold.testkit.blackbox;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A small correct Redis lock (SET NX PX, compare-and-delete, compare-and-expire, INCR tokens, a
 * client-side deadline), with one flaw switched on at a time: each flaw breaks one property, so
 * each property is shown able to fail.
 */
record ToyLock(Flaw flaw) implements LockLibrary {
  enum Flaw {
    NONE, RELEASE_KEEPS_KEY, REFUSAL_DELETES, TOKEN_GOES_BACK, BELIEF_TOO_LONG, UNLOCK_WITHOUT_COMPARE,
    SENDS_AFTER_RELEASE,
    /** A plain DEL, then "not held" when the value was not ours: it deletes whatever is there. */
    UNLOCK_WITHOUT_COMPARE_SAYS_NOT_HELD,
    /** A renew that sets the TTL on whatever holds the key, shortening another client's lock. */
    RENEW_WITHOUT_COMPARE,
    /** A GET, then a DEL in a second round trip when the value was ours: the lock may change between. */
    CHECK_THEN_DEL,
    /** The client's deadline counted from the reply instead of the send. */
    VALIDITY_FROM_REPLY
  }

  static final String COMPARE_DEL = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
  static final String COMPARE_PEXPIRE =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0";

  @Override
  public String name() {
    return "toy-" + flaw.name().toLowerCase();
  }

  @Override
  public Traits traits() {
    return new Traits(true, true, true, false);
  }

  @Override
  public String key(String resource) {
    return "toy:" + resource;
  }

  @Override
  public ServerLock read(ServerView redis, String key) {
    String holder = redis.get(key);
    return holder == null ? ServerLock.FREE : new ServerLock(Optional.of(holder), redis.pttl(key));
  }

  @Override
  public LockClient connect(Endpoint endpoint) {
    RedisURI uri = RedisURI.create(endpoint.uri());
    uri.setTimeout(endpoint.commandTimeout());
    RedisClient client = RedisClient.create(uri);
    StatefulRedisConnection<String, String> connection = client.connect();
    RedisCommands<String, String> redis = connection.sync();
    String id = UUID.randomUUID().toString();
    ScheduledExecutorService late = Executors.newSingleThreadScheduledExecutor();
    return new LockClient() {
      long deadline;

      @Override
      public Grant tryAcquire(String resource, Duration ttl) {
        long start = System.nanoTime();
        if (!"OK".equals(redis.set(key(resource), id, SetArgs.Builder.nx().px(ttl.toMillis())))) {
          if (flaw == Flaw.REFUSAL_DELETES) {
            redis.del(key(resource));
          }
          return new Grant.NotAcquired();
        }
        long from = flaw == Flaw.VALIDITY_FROM_REPLY ? System.nanoTime() : start;
        long token = flaw == Flaw.TOKEN_GOES_BACK ? 1 : redis.incr(key(resource) + ":fence");
        long believed = flaw == Flaw.BELIEF_TOO_LONG ? ttl.toNanos() * 2 : ttl.toNanos() - 10_000_000L;
        deadline = from + believed;
        return new Grant.Acquired(ttl, OptionalLong.of(token));
      }

      @Override
      public boolean renew(String resource, Duration ttl) {
        long start = System.nanoTime();
        Long done = flaw == Flaw.RENEW_WITHOUT_COMPARE ? (redis.pexpire(key(resource), ttl.toMillis()) ? 1L : 0L)
            : redis.eval(COMPARE_PEXPIRE, ScriptOutputType.INTEGER, new String[] {key(resource)}, id,
                Long.toString(ttl.toMillis()));
        if (done == 1) {
          deadline = start + ttl.toNanos() - 10_000_000L;
        }
        return done == 1;
      }

      @Override
      public boolean release(String resource) {
        deadline = 0;
        if (flaw == Flaw.RELEASE_KEEPS_KEY) {
          return true;
        }
        if (flaw == Flaw.SENDS_AFTER_RELEASE) {
          late.schedule(() -> redis.get(key(resource)), 50, TimeUnit.MILLISECONDS);
        }
        if (flaw == Flaw.UNLOCK_WITHOUT_COMPARE) {
          redis.del(key(resource));
          return true;
        }
        if (flaw == Flaw.CHECK_THEN_DEL) {
          boolean ours = id.equals(redis.get(key(resource)));
          if (ours) {
            redis.del(key(resource));
          }
          return ours;
        }
        if (flaw == Flaw.UNLOCK_WITHOUT_COMPARE_SAYS_NOT_HELD) {
          String held = redis.get(key(resource));
          redis.del(key(resource));
          return id.equals(held);
        }
        Long deleted = redis.eval(COMPARE_DEL, ScriptOutputType.INTEGER, new String[] {key(resource)}, id);
        return deleted == 1;
      }

      @Override
      public Optional<Duration> belief(String resource) {
        long left = deadline - System.nanoTime();
        return deadline == 0 || left <= 0 ? Optional.empty() : Optional.of(Duration.ofNanos(left));
      }

      @Override
      public Optional<String> holderId(String resource) {
        return Optional.of(id);
      }

      @Override
      public void close() {
        late.shutdownNow();
        connection.close();
        client.shutdown();
      }
    };
  }
}
