package dev.leasehold.testkit.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The simulated server's data, strings and hashes with Redis's millisecond expiry on a virtual
 * clock, and the commands the scripts and the differential test's outside commands use, with
 * Redis's replies and error texts (7.0's wording; 6.2's is the same for these).
 *
 * <p>Replies are {@link Long} (integer), {@link String} (bulk), {@link StatusReply}, {@code null}
 * (nil) and {@link List} (array); errors are thrown as {@link RedisError}.
 *
 * <p>Expiry is lazy and exactly Redis's: a key is gone once the ms clock is past its expiry
 * ({@code now > when}), so in its last millisecond it is still there with PTTL 0. Redis also
 * expires keys in the background, which no command can tell apart from lazy expiry.
 *
 * <p>This class is not threadsafe: {@link SimulatedRedis} runs one command at a time.
 */
final class Keyspace {
  /** Commands a {@code no-writes} script may not call: Redis's {@code write} and {@code may-replicate} flags. */
  private static final Set<String> WRITES = Set.of("SET", "INCR", "PEXPIRE", "PERSIST", "DEL", "HSET", "PUBLISH");
  private static final Set<String> COMMANDS =
      Set.of("TYPE", "GET", "SET", "INCR", "PTTL", "PEXPIRE", "PERSIST", "DEL", "EXISTS", "HSET", "PUBLISH", "TIME");

  /** A value: a String or a hash (field to value), and its absolute expiry in ms, -1 for none. */
  private static final class Value {
    Object data;
    long expiryMs = -1;

    Value(Object data) {
      this.data = data;
    }
  }

  private final Map<String, Value> keys = new HashMap<>();
  private final LongSupplier nowMs;
  private final LongSupplier nowMicros;

  /**
   * @param nowMs the ms clock expiry is measured on
   * @param nowMicros microseconds since the epoch, what {@code TIME} answers
   */
  Keyspace(LongSupplier nowMs, LongSupplier nowMicros) {
    this.nowMs = nowMs;
    this.nowMicros = nowMicros;
  }

  static boolean known(String command) {
    return COMMANDS.contains(command);
  }

  static boolean writes(String command) {
    return WRITES.contains(command);
  }

  /** Forgets every key (a restart without persistence). */
  void clear() {
    keys.clear();
  }

  /** The live value of {@code key} after lazy expiry: a String, a Map for a hash, or null. */
  Object data(String key) {
    Value v = live(key);
    return v == null ? null : v.data;
  }

  /** The absolute expiry (ms) of a live {@code key}, -1 for none. */
  long expiryMs(String key) {
    Value v = live(key);
    return v == null ? -1 : v.expiryMs;
  }

  /** Runs one command; {@code argv[0]} is the command name in upper case. */
  Object execute(List<String> argv) {
    String name = argv.get(0);
    int n = argv.size();
    switch (name) {
      case "TYPE":
        RedisError.requireArity(name, n == 2);
        return new StatusReply(type(live(argv.get(1))));
      case "GET":
        RedisError.requireArity(name, n == 2);
        return string(argv.get(1));
      case "SET":
        RedisError.requireArity(name, n >= 3);
        return set(argv);
      case "INCR":
        RedisError.requireArity(name, n == 2);
        return incr(argv.get(1));
      case "PTTL":
        RedisError.requireArity(name, n == 2);
        return pttl(argv.get(1));
      case "PEXPIRE":
        RedisError.requireArity(name, n == 3);
        return pexpire(argv.get(1), RedisError.parseInteger(argv.get(2)));
      case "PERSIST":
        RedisError.requireArity(name, n == 2);
        return persist(argv.get(1));
      case "DEL":
        RedisError.requireArity(name, n >= 2);
        return count(argv, true);
      case "EXISTS":
        RedisError.requireArity(name, n >= 2);
        return count(argv, false);
      case "HSET":
        RedisError.requireArity(name, n >= 4 && n % 2 == 0);
        return hset(argv);
      case "PUBLISH":
        RedisError.requireArity(name, n == 3);
        return 0L; // nobody subscribes to the simulated server
      case "TIME":
        RedisError.requireArity(name, n == 1);
        long micros = nowMicros.getAsLong();
        return List.of(Long.toString(micros / 1_000_000L), Long.toString(micros % 1_000_000L));
      default:
        throw new RedisError("ERR unknown command '" + name.toLowerCase(Locale.ROOT) + "'");
    }
  }

  private Value live(String key) {
    Value v = keys.get(key);
    if (v != null && v.expiryMs >= 0 && nowMs.getAsLong() > v.expiryMs) {
      keys.remove(key);
      return null;
    }
    return v;
  }

  private static String type(Value v) {
    return v == null ? "none" : v.data instanceof String ? "string" : "hash";
  }

  private String string(String key) {
    Value v = live(key);
    if (v == null) {
      return null;
    }
    if (!(v.data instanceof String s)) {
      throw new RedisError(RedisError.WRONGTYPE);
    }
    return s;
  }

  /** SET key value [NX|XX] [PX ms|EX s|KEEPTTL]. */
  private Object set(List<String> argv) {
    boolean nx = false;
    boolean xx = false;
    boolean keepTtl = false;
    long ttlMs = -1;
    for (int i = 3; i < argv.size(); i++) {
      String option = argv.get(i).toUpperCase(Locale.ROOT);
      boolean expiry = option.equals("PX") || option.equals("EX");
      if (option.equals("NX") && !xx) {
        nx = true;
      } else if (option.equals("XX") && !nx) {
        xx = true;
      } else if (option.equals("KEEPTTL") && ttlMs < 0) {
        keepTtl = true;
      } else if (expiry && ttlMs < 0 && !keepTtl && i + 1 < argv.size()) {
        long amount = RedisError.parseInteger(argv.get(++i));
        if (amount <= 0 || (option.equals("EX") && amount > Long.MAX_VALUE / 1000)) {
          throw new RedisError("ERR invalid expire time in 'set' command");
        }
        ttlMs = option.equals("EX") ? amount * 1000 : amount;
      } else {
        throw new RedisError("ERR syntax error");
      }
    }
    String key = argv.get(1);
    Value old = live(key);
    if ((nx && old != null) || (xx && old == null)) {
      return null;
    }
    Value v = new Value(argv.get(2));
    if (ttlMs > 0) {
      v.expiryMs = nowMs.getAsLong() + ttlMs;
    } else if (keepTtl && old != null) {
      v.expiryMs = old.expiryMs;
    }
    keys.put(key, v);
    return StatusReply.OK;
  }

  private Long incr(String key) {
    Value v = live(key);
    long current = 0;
    if (v != null) {
      if (!(v.data instanceof String s)) {
        throw new RedisError(RedisError.WRONGTYPE);
      }
      current = RedisError.parseInteger(s);
    }
    if (current == Long.MAX_VALUE) {
      throw new RedisError("ERR increment or decrement would overflow");
    }
    long next = current + 1;
    if (v == null) {
      keys.put(key, new Value(Long.toString(next)));
    } else {
      v.data = Long.toString(next); // INCR keeps the key's TTL
    }
    return next;
  }

  private Long pttl(String key) {
    Value v = live(key);
    if (v == null) {
      return -2L;
    }
    return v.expiryMs < 0 ? -1L : Math.max(0, v.expiryMs - nowMs.getAsLong());
  }

  /** PEXPIRE: a time already past deletes the key (and answers 1), as on a primary. */
  private Long pexpire(String key, long ms) {
    Value v = live(key);
    if (v == null) {
      return 0L;
    }
    long now = nowMs.getAsLong();
    if (ms > Long.MAX_VALUE - now) {
      throw new RedisError("ERR invalid expire time in 'pexpire' command");
    }
    long when = now + ms;
    if (when <= now) {
      keys.remove(key);
    } else {
      v.expiryMs = when;
    }
    return 1L;
  }

  private Long persist(String key) {
    Value v = live(key);
    if (v == null || v.expiryMs < 0) {
      return 0L;
    }
    v.expiryMs = -1;
    return 1L;
  }

  private Long count(List<String> argv, boolean delete) {
    long found = 0;
    for (String key : argv.subList(1, argv.size())) {
      if (live(key) != null) {
        found++;
        if (delete) {
          keys.remove(key);
        }
      }
    }
    return found;
  }

  @SuppressWarnings("unchecked")
  private Long hset(List<String> argv) {
    String key = argv.get(1);
    Value v = live(key);
    if (v == null) {
      v = new Value(new LinkedHashMap<String, String>());
      keys.put(key, v);
    } else if (!(v.data instanceof Map)) {
      throw new RedisError(RedisError.WRONGTYPE);
    }
    Map<String, String> hash = (Map<String, String>) v.data;
    long added = 0;
    for (int i = 2; i < argv.size(); i += 2) {
      if (hash.put(argv.get(i), argv.get(i + 1)) == null) {
        added++;
      }
    }
    return added;
  }

  /** For tests of the keyspace: every live key, in no order. */
  List<String> liveKeys() {
    List<String> out = new ArrayList<>();
    for (String key : List.copyOf(keys.keySet())) {
      if (live(key) != null) {
        out.add(key);
      }
    }
    return out;
  }
}
