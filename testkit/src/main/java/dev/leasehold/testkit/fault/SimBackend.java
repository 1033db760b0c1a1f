package dev.leasehold.testkit.fault;

import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.testkit.sim.SimulatedGateway;
import dev.leasehold.testkit.sim.SimulatedRedis;
import dev.leasehold.testkit.sim.VirtualClock;
import java.util.List;

/**
 * The simulated server on virtual time, running the production scripts. Cheap enough to make one
 * per chain.
 *
 * <p>This class is threadsafe.
 */
public final class SimBackend implements Backend {
  private final VirtualClock clock = new VirtualClock();
  private final SimulatedRedis redis = new SimulatedRedis(clock);
  private final SimulatedGateway gateway = new SimulatedGateway(redis);

  @Override
  public VirtualClock clock() {
    return clock;
  }

  public SimulatedRedis redis() {
    return redis;
  }

  @Override
  public LeaseGateway gateway() {
    return gateway;
  }

  @Override
  public ServerView view(LeaseKeys keys) {
    SimulatedRedis.Entry e = redis.entry(keys);
    long fence = redis.counter(keys);
    if (e == null) {
      return ServerView.absent(fence);
    }
    // The first instant the key is gone: the end of its last millisecond (none: never).
    long expiry = e.expiryMs() < 0 ? Long.MAX_VALUE / 2 : (e.expiryMs() + 1) * 1_000_000L;
    return new ServerView(e.value(), expiry, expiry, fence);
  }

  @Override
  public void external(External write, LeaseKeys keys, long ttlMs) {
    String key = keys.lease();
    switch (write) {
      case DELETE -> redis.call("DEL", key);
      case OVERWRITE -> redis.call("SET", key, External.FOREIGN_VALUE, "PX", Long.toString(ttlMs));
      case PERSIST -> redis.call("PERSIST", key);
      case RETYPE -> {
        redis.call("DEL", key);
        redis.call("HSET", key, "holder", External.FOREIGN_VALUE);
        redis.call("PEXPIRE", key, Long.toString(ttlMs));
      }
    }
  }

  @Override
  public void restart() {
    redis.restart();
  }

  @Override
  public void flushScripts() {
    redis.flushScripts();
  }

  @Override
  public List<Long> grantLog() {
    return redis.grantLog();
  }

  @Override
  public long slackNanos() {
    return 0;
  }

  @Override
  public void close() {}
}
