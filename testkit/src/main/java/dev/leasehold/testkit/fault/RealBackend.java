package dev.leasehold.testkit.fault;

import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.LettuceLeaseGateway;
import dev.leasehold.testkit.sim.RealClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;

/**
 * A real redis-server (loopback only) for chains on real time. One instance per test class holds
 * the adapter's lettuce gateway and a separate admin connection; {@link #chain(LeaseKeys)} gives each chain
 * a fresh clock and an empty database. A restart fault is FLUSHALL plus SCRIPT FLUSH (what a
 * restart without persistence leaves behind) rather than a process restart, which would cost
 * a reconnect per fault.
 *
 * <p>This class is threadsafe (lettuce connections are).
 */
public final class RealBackend implements AutoCloseable {
  /**
   * How far a direct read or a reply may be off the frozen client instant on a quiet machine. The
   * slack a chain uses adds the lateness it measured (see {@code slackNanos}).
   */
  public static final long SLACK_NANOS = Duration.ofMillis(4).toNanos();

  private final LettuceLeaseGateway gateway;
  private final RedisClient adminClient;
  private final StatefulRedisConnection<String, String> admin;

  /** The lease key's value; {@link ServerView#NOT_A_STRING} for a hash (GET answers WRONGTYPE). */
  private static String holderOf(RedisCommands<String, String> cmd, LeaseKeys keys) {
    try {
      return cmd.get(keys.lease());
    } catch (RedisCommandExecutionException e) {
      return ServerView.NOT_A_STRING;
    }
  }

  public RealBackend(RedisURI uri) {
    this.gateway = LettuceLeaseGateway.connect(uri, Duration.ofMillis(500));
    this.adminClient = RedisClient.create(uri);
    this.admin = adminClient.connect();
  }

  /**
   * A backend view for one chain on {@code keys}: a fresh real clock, and the chain's two keys
   * deleted. Only those keys: the server may be a deployment that holds other data.
   */
  public Backend chain(LeaseKeys keys) {
    RedisCommands<String, String> cmd = admin.sync();
    cmd.del(keys.lease(), keys.fence());
    RealClock clock = new RealClock();
    clock.refreeze();
    return new Backend() {
      /** The longest a step of this chain has run past its frozen instant so far, measured. */
      private long lateness;

      @Override
      public RealClock clock() {
        return clock;
      }

      @Override
      public LeaseGateway gateway() {
        return gateway;
      }

      @Override
      public ServerView view(LeaseKeys keys) {
        long t0 = clock.liveNanos();
        String holder = holderOf(cmd, keys);
        long pttl = cmd.pttl(keys.lease());
        String fence = cmd.get(keys.fence());
        long t1 = clock.liveNanos();
        long f = fence == null ? 0 : Long.parseLong(fence);
        if (holder == null || pttl == -2) {
          return ServerView.absent(f);
        }
        if (pttl == -1) {
          return new ServerView(holder, Long.MAX_VALUE / 2, Long.MAX_VALUE / 2, f);
        }
        // Redis keeps the key to the end of its expiry millisecond.
        return new ServerView(holder, t0 + pttl * 1_000_000L, t1 + (pttl + 1) * 1_000_000L, f);
      }

      @Override
      public void external(External write, LeaseKeys keys, long ttlMs) {
        switch (write) {
          case DELETE -> cmd.del(keys.lease());
          case OVERWRITE -> cmd.set(keys.lease(), External.FOREIGN_VALUE, SetArgs.Builder.px(ttlMs));
          case PERSIST -> cmd.persist(keys.lease());
          case RETYPE -> {
            cmd.del(keys.lease());
            cmd.hset(keys.lease(), "holder", External.FOREIGN_VALUE);
            cmd.pexpire(keys.lease(), ttlMs);
          }
        }
      }

      @Override
      public void restart() {
        // What a restart without persistence does to this chain; other keys are not ours to drop.
        cmd.del(keys.lease(), keys.fence());
        cmd.scriptFlush();
      }

      @Override
      public void flushScripts() {
        cmd.scriptFlush();
      }

      @Override
      public List<Long> grantLog() {
        return null;
      }

      @Override
      public synchronized long slackNanos() {
        // Evidence, not an assumption about this thread's speed: whatever the server did in this
        // step happened between the frozen instant and now, and an expiry it set in an earlier step
        // may be as late as that step ran. On a loaded machine the window widens: the checks stay
        // sound and judge both ways an instant that falls inside it.
        lateness = Math.max(lateness, clock.liveNanos() - clock.trueNanos());
        return SLACK_NANOS + lateness;
      }

      @Override
      public void close() {
        // The connections belong to the test class.
      }
    };
  }

  @Override
  public void close() {
    try {
      gateway.close();
    } finally {
      admin.close();
      adminClient.shutdown();
    }
  }
}
