package dev.leasehold.testkit.sim;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.LeaseScript;
import dev.leasehold.redis.ScriptCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link LeaseGateway} over {@link SimulatedRedis}, sending and reading exactly what
 * {@code LettuceLeaseGateway} sends to and reads from a Redis 7 server: the KEYS and ARGV of
 * {@link ScriptCalls}, {@code EVALSHA} (INSPECT with {@code EVALSHA_RO}) of the script text with
 * its {@code #!lua} line, on {@code NOSCRIPT} the script's text once with {@code EVAL} ({@code EVAL_RO}), the reply
 * shaped as lettuce's MULTI or INTEGER output and decoded by {@link ScriptCalls}; WAIT answers the
 * server's replica count ({@link SimulatedRedis#replicas(int)}, 0 unless set).
 *
 * <p>This class is threadsafe.
 */
public final class SimulatedGateway implements LeaseGateway {
  private final SimulatedRedis redis;
  private final Map<LeaseScript, String> sources = new EnumMap<>(LeaseScript.class);
  private final Map<LeaseScript, String> shas = new EnumMap<>(LeaseScript.class);

  /** A gateway that sends the production scripts. */
  public SimulatedGateway(SimulatedRedis redis) {
    this(redis, Map.of());
  }

  /**
   * A gateway that sends {@code replaced}'s text instead of some production scripts: a test of
   * what the simulated server runs (an edited script must change what it does).
   */
  public SimulatedGateway(SimulatedRedis redis, Map<LeaseScript, String> replaced) {
    this.redis = redis;
    for (LeaseScript script : LeaseScript.values()) {
      String text = replaced.get(script);
      sources.put(script, text == null ? script.source(true) : text);
      shas.put(script, text == null ? script.sha1(true) : CompiledScript.sha1(text));
    }
  }

  public SimulatedRedis redis() {
    return redis;
  }

  @Override
  public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode, long counterRetentionMillis) {
    return ScriptCalls.acquireReply(array(run(ScriptCalls.acquire(keys, ownership, ownerToken, ttlMillis, mode, counterRetentionMillis))));
  }

  @Override
  public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
    return ScriptCalls.renewReply(array(run(ScriptCalls.renew(keys, ownership, ttlMillis, counterRetentionMillis))), 1).get(0);
  }

  /**
   * RENEW of several leases in one script run, as the lettuce gateway's batches send it
   * ({@link ScriptCalls#renewAll}): one change per lease, in order.
   */
  public List<GatewayReply.Change> renewAll(List<ScriptCalls.Renewal> renewals, long counterRetentionMillis) {
    return ScriptCalls.renewReply(array(run(ScriptCalls.renewAll(renewals, counterRetentionMillis))), renewals.size());
  }

  @Override
  public GatewayReply.Change release(LeaseKeys keys, String ownership) {
    return ScriptCalls.changeReply(LeaseScript.RELEASE, integer(run(ScriptCalls.release(keys, ownership))));
  }

  @Override
  public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    return ScriptCalls.inspectReply(array(run(ScriptCalls.inspect(keys, ownership))));
  }

  @Override
  public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
    try {
      return (Long) redis.call("WAIT", Integer.toString(replicas), Long.toString(timeout.toMillis()));
    } catch (RedisError e) {
      throw ScriptCalls.serverError(e.getMessage());
    }
  }

  @Override
  public void close() {}

  private Object run(ScriptCalls.Call call) {
    LeaseScript script = call.script();
    try {
      try {
        return redis.evalsha(shas.get(script), script.readOnly(), call.keys(), call.args());
      } catch (RedisError e) {
        if (!e.code().equals("NOSCRIPT")) {
          throw e;
        }
        // NOSCRIPT: the script did not run; send its text once, as the lettuce gateway does.
        return redis.eval(sources.get(script), script.readOnly(), call.keys(), call.args());
      }
    } catch (RedisError e) {
      throw ScriptCalls.serverError(e.getMessage());
    }
  }

  /** As lettuce's MULTI output reads a reply: an array as a list (status as its text), anything else as a list of it. */
  @SuppressWarnings("unchecked")
  private static List<Object> array(Object reply) {
    if (reply instanceof List<?>) {
      return (List<Object>) multi(reply);
    }
    List<Object> one = new ArrayList<>(1);
    one.add(multi(reply));
    return one;
  }

  private static Object multi(Object reply) {
    if (reply instanceof StatusReply status) {
      return status.text();
    }
    if (reply instanceof List<?> items) {
      List<Object> out = new ArrayList<>(items.size());
      items.forEach(item -> out.add(multi(item)));
      return out;
    }
    return reply;
  }

  /** As lettuce's INTEGER output reads a reply: an integer, or null for nil. */
  private static Long integer(Object reply) {
    if (reply == null || reply instanceof Long) {
      return (Long) reply;
    }
    throw new GatewayException(GatewayException.Failure.AMBIGUOUS,
        "unexpected script reply: " + reply.getClass().getSimpleName());
  }
}
