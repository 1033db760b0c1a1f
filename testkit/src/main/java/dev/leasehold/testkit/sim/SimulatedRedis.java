package dev.leasehold.testkit.sim;

import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.LeaseScript;
import dev.leasehold.testkit.fault.ServerView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A Redis server in memory on a {@link LeaseClock}: it runs the scripts it is sent, the very
 * production {@code .lua} files, with LuaJ (see {@link LuaEngine} for how it runs them and how LuaJ
 * differs from Redis's Lua) over a keyspace with Redis's millisecond expiry ({@link Keyspace}): a
 * key is gone when the server's ms clock is past its expiry ({@code now > when}), so during its
 * last millisecond it is still there with PTTL 0, which the client treats as expired (a replay
 * then gets no budget). {@code TIME} reads the same clock on {@link LeaseClock#EPOCH_NANOS}.
 *
 * <p>It starts, like a real server, with no script loaded: the first {@code EVALSHA} of each script
 * answers {@code NOSCRIPT} and the gateway loads it. {@link #restart()} loses every key and the
 * script cache; {@link #flushScripts()} is {@code SCRIPT FLUSH}. Commands arrive through
 * {@link #call} as a client sends them, or through {@link #evalsha} and {@link #scriptLoad}.
 *
 * <p>It also keeps what no real server can tell: the ghost grant log, every token an ACQUIRE granted.
 *
 * <p>This class is threadsafe: every command runs under the instance lock, as Redis runs one
 * command (and one script) at a time.
 */
public final class SimulatedRedis {
  /** A lease key's value and absolute expiry (server ms), -1 when it has none. */
  public record Entry(String value, long expiryMs) {}

  private static final Set<String> ACQUIRE_SHAS = Set.of(LeaseScript.ACQUIRE.sha1(true), LeaseScript.ACQUIRE.sha1(false));

  private final LeaseClock clock;
  private final Keyspace keyspace;
  private LuaEngine lua;
  /** Every token an ACQUIRE issued, in order: the ghost grant log the FencedEffects check uses. */
  private final List<Long> grantLog = new ArrayList<>();
  private long scriptLoads;
  private long restarts;
  /** Replicas that acknowledge every write at once (a simulated server has no replication lag). */
  private int replicas;

  public SimulatedRedis(LeaseClock clock) {
    this.clock = clock;
    this.keyspace = new Keyspace(this::nowMs, this::serverMicros);
    this.lua = newLua();
  }

  private LuaEngine newLua() {
    return new LuaEngine(keyspace::execute);
  }

  /** The server's ms clock, on the chain's time. */
  public synchronized long nowMs() {
    return Math.floorDiv(clock.trueNanos(), 1_000_000L);
  }

  /** Server TIME in microseconds since the epoch, as the CLOCK_FLOOR script reads it. */
  public synchronized long serverMicros() {
    return (LeaseClock.EPOCH_NANOS + clock.trueNanos()) / 1_000L;
  }

  /**
   * One command as a client sends it ({@code "SET", "k", "v", "PX", "100"}). Besides the keyspace's
   * commands: {@code EVAL}, {@code EVALSHA}, {@code EVALSHA_RO}, {@code SCRIPT LOAD|FLUSH|EXISTS}, {@code WAIT}.
   *
   * @return the reply: Long, String (bulk), {@link StatusReply}, null (nil) or a List of these
   * @throws RedisError for an error reply
   */
  public synchronized Object call(String... argv) {
    if (argv.length == 0) {
      throw new RedisError("ERR unknown command ''");
    }
    List<String> args = new ArrayList<>(Arrays.asList(argv));
    String name = args.get(0).toUpperCase(Locale.ROOT);
    args.set(0, name);
    switch (name) {
      case "EVAL", "EVAL_RO", "EVALSHA", "EVALSHA_RO" -> {
        if (args.size() < 3) {
          throw RedisError.wrongArity(name);
        }
        long numKeys = RedisError.parseInteger(args.get(2));
        if (numKeys < 0 || numKeys > args.size() - 3) {
          throw new RedisError(numKeys < 0 ? "ERR Number of keys can't be negative"
              : "ERR Number of keys can't be greater than number of args");
        }
        List<String> keys = args.subList(3, 3 + (int) numKeys);
        List<String> values = args.subList(3 + (int) numKeys, args.size());
        if (name.startsWith("EVALSHA")) {
          return evalsha(args.get(1), name.equals("EVALSHA_RO"), keys, values);
        }
        return eval(args.get(1), name.equals("EVAL_RO"), keys, values);
      }
      case "SCRIPT" -> {
        String sub = args.size() > 1 ? args.get(1).toUpperCase(Locale.ROOT) : "";
        if (sub.equals("LOAD") && args.size() == 3) {
          return scriptLoad(args.get(2));
        }
        if (sub.equals("FLUSH") && args.size() <= 3) {
          flushScripts();
          return StatusReply.OK;
        }
        if (sub.equals("EXISTS") && args.size() >= 3) {
          List<Object> out = new ArrayList<>();
          args.subList(2, args.size()).forEach(sha -> out.add(lua.loaded(sha.toLowerCase(Locale.ROOT)) ? 1L : 0L));
          return out;
        }
        throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + sub.toLowerCase(Locale.ROOT)
            + "'. Try SCRIPT HELP.");
      }
      case "WAIT" -> {
        if (args.size() != 3) {
          throw RedisError.wrongArity(name);
        }
        RedisError.parseInteger(args.get(1));
        if (RedisError.parseInteger(args.get(2)) < 0) {
          throw new RedisError("ERR timeout is negative");
        }
        // Every replica has the write already, so WAIT answers at once with all of them.
        return (long) replicas;
      }
      default -> {
        return keyspace.execute(args);
      }
    }
  }

  /** SCRIPT LOAD: compiles {@code text} (once per distinct text) and answers its SHA1. */
  public synchronized String scriptLoad(String text) {
    scriptLoads++;
    return lua.load(text);
  }

  /**
   * EVAL ({@code readOnly}: EVAL_RO): runs {@code text} and caches it, as {@code SCRIPT LOAD} would
   * (counted among {@link #scriptLoads()}).
   *
   * @throws RedisError the script's compile error or its error reply
   */
  public synchronized Object eval(String text, boolean readOnly, List<String> keys, List<String> args) {
    return evalsha(scriptLoad(text), readOnly, keys, args);
  }

  /**
   * EVALSHA ({@code readOnly}: EVALSHA_RO).
   *
   * @throws RedisError NOSCRIPT when no script has that SHA1, or the script's error reply
   */
  public synchronized Object evalsha(String sha, boolean readOnly, List<String> keys, List<String> args) {
    Object reply = lua.evalsha(sha, readOnly, keys, args);
    if (ACQUIRE_SHAS.contains(sha) && reply instanceof List<?> r && r.size() > 1 && Long.valueOf(1L).equals(r.get(0))
        && r.get(1) instanceof Long token) {
      grantLog.add(token);
    }
    return reply;
  }

  /** The live lease entry, for invariant checks (no side effect beyond lazy expiry); null when absent. */
  public synchronized Entry entry(LeaseKeys keys) {
    Object data = keyspace.data(keys.lease());
    if (data == null) {
      return null;
    }
    String value = data instanceof String v ? v : ServerView.NOT_A_STRING;
    return new Entry(value, keyspace.expiryMs(keys.lease()));
  }

  /** The fencing counter, 0 when absent. */
  public synchronized long counter(LeaseKeys keys) {
    Object data = keyspace.data(keys.fence());
    if (data == null) {
      return 0;
    }
    if (!(data instanceof String value)) {
      throw new IllegalStateException("the fencing counter is a hash");
    }
    return RedisError.parseInteger(value);
  }

  /** A restart without persistence: every key, counter and cached script is gone. */
  public synchronized void restart() {
    keyspace.clear();
    lua = newLua();
    restarts++;
  }

  /** SCRIPT FLUSH: Redis drops the cache and starts a new Lua state. */
  public synchronized void flushScripts() {
    lua = newLua();
  }

  /** How many replicas acknowledge from now on (0 by default, as a server without replicas). */
  public synchronized void replicas(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("replicas must be >= 0 but was " + count);
    }
    replicas = count;
  }

  public synchronized int replicas() {
    return replicas;
  }

  public synchronized List<Long> grantLog() {
    return List.copyOf(grantLog);
  }

  /** Scripts cached so far: by SCRIPT LOAD, or by EVAL (EVAL_RO) of their text. */
  public synchronized long scriptLoads() {
    return scriptLoads;
  }

  public synchronized long restarts() {
    return restarts;
  }
}
