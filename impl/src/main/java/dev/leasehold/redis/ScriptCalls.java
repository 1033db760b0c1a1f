package dev.leasehold.redis;

import io.lettuce.core.RedisCommandExecutionException;
import java.util.ArrayList;
import java.util.List;

/**
 * What each script call sends (its KEYS and ARGV) and how its reply is read. Every gateway goes
 * through here, so a simulated server is sent and read exactly as a real one: the lettuce gateway
 * and the kit's simulated gateway differ only in where {@code EVALSHA} goes.
 *
 * <p>This class is stateless and threadsafe.
 */
public final class ScriptCalls {
  private ScriptCalls() {}

  /**
   * One {@code EVALSHA}: the script, its KEYS and its ARGV.
   *
   * <p>This record is immutable.
   */
  public record Call(LeaseScript script, List<String> keys, List<String> args) {
    public Call {
      keys = List.copyOf(keys);
      args = List.copyOf(args);
    }

    /** Whether the script answers with an array (read as lettuce's MULTI) rather than an integer. */
    public boolean arrayReply() {
      return script != LeaseScript.RELEASE;
    }

    String[] keyArray() {
      return keys.toArray(String[]::new);
    }

    String[] argArray() {
      return args.toArray(String[]::new);
    }
  }

  /**
   * ACQUIRE: KEYS lease, fence; ARGV ownership, {@code ownerToken:}, ttl ms, fence mode, the
   * counter's retention in ms (0: the counter keeps no TTL).
   */
  public static Call acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode,
      long counterRetentionMillis) {
    return new Call(LeaseScript.ACQUIRE, List.of(keys.lease(), keys.fence()),
        List.of(ownership, ownerToken + ":", Long.toString(ttlMillis), mode.wire(), Long.toString(counterRetentionMillis)));
  }

  /** One lease's part of a RENEW call. */
  public record Renewal(LeaseKeys keys, String ownership, long ttlMillis) {}

  /** RENEW of one lease: {@link #renewAll} of one. */
  public static Call renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
    return renewAll(List.of(new Renewal(keys, ownership, ttlMillis)), counterRetentionMillis);
  }

  /**
   * RENEW of several leases in one script run: KEYS each lease's key and counter; ARGV the
   * counters' retention in ms (0: the counters are left alone), then each lease's ownership and ttl
   * ms. In a Redis Cluster every lease of one call must be in one slot.
   */
  public static Call renewAll(List<Renewal> renewals, long counterRetentionMillis) {
    List<String> keys = new ArrayList<>(2 * renewals.size());
    List<String> args = new ArrayList<>(1 + 2 * renewals.size());
    args.add(Long.toString(counterRetentionMillis));
    for (Renewal r : renewals) {
      keys.add(r.keys().lease());
      keys.add(r.keys().fence());
      args.add(r.ownership());
      args.add(Long.toString(r.ttlMillis()));
    }
    return new Call(LeaseScript.RENEW, keys, args);
  }

  /** RELEASE: KEYS lease; ARGV ownership. */
  public static Call release(LeaseKeys keys, String ownership) {
    return new Call(LeaseScript.RELEASE, List.of(keys.lease()), List.of(ownership));
  }

  /** INSPECT: KEYS lease, fence; ARGV ownership. */
  public static Call inspect(LeaseKeys keys, String ownership) {
    return new Call(LeaseScript.INSPECT, List.of(keys.lease(), keys.fence()), List.of(ownership));
  }

  /** ACQUIRE's array reply: {1, token}, {2, token, pttl} or {0, 0, pttl, sameOwner}. */
  public static GatewayReply.Acquire acquireReply(List<Object> reply) {
    long status = number(reply, 0);
    if (status == 1) {
      return new GatewayReply.Granted(number(reply, 1));
    }
    if (status == 2) {
      return new GatewayReply.Replayed(number(reply, 1), number(reply, 2));
    }
    return new GatewayReply.HeldByOther(number(reply, 2), number(reply, 3) == 1);
  }

  /** INSPECT's array reply: {0} or {1, thisAttempt, pttl, token}. */
  public static GatewayReply.Inspect inspectReply(List<Object> reply) {
    if (number(reply, 0) == 0) {
      return new GatewayReply.Vacant();
    }
    return new GatewayReply.Occupied(number(reply, 1) == 1, number(reply, 2), number(reply, 3));
  }

  /** RENEW's array reply: 1, 0 or -1 for each lease of the call, in order. */
  public static List<GatewayReply.Change> renewReply(List<Object> reply, int leases) {
    if (reply == null || reply.size() != leases) {
      // A reply we cannot read, after the script ran.
      throw new GatewayException(GatewayException.Failure.AMBIGUOUS, "RENEW answered " + (reply == null ? "nil"
          : reply.size() + " values for " + leases + " leases"));
    }
    List<GatewayReply.Change> changes = new ArrayList<>(leases);
    for (int i = 0; i < leases; i++) {
      changes.add(changeReply(LeaseScript.RENEW, reply.get(i) instanceof Long n ? n : null));
    }
    return changes;
  }

  /** RENEW's (one lease's) or RELEASE's integer reply (null when the server answered nil): 1, 0 or -1. */
  public static GatewayReply.Change changeReply(LeaseScript script, Long reply) {
    if (reply == null) {
      // Our scripts always return an integer; a nil reply is one we cannot read, after the script ran.
      throw new GatewayException(GatewayException.Failure.AMBIGUOUS, script.name() + " returned nil");
    }
    if (reply == 1) {
      return GatewayReply.Change.APPLIED;
    }
    return reply == 0 ? GatewayReply.Change.ABSENT : GatewayReply.Change.OTHER;
  }

  /**
   * What a gateway throws when the server answered a script call with the error {@code message}
   * (as Redis words it, e.g. {@code WRONGTYPE ...} or {@code BUSY ...}): the lettuce gateway's
   * classification of the same reply.
   */
  public static GatewayException serverError(String message) {
    return LettuceFailures.classify(new RedisCommandExecutionException(message));
  }

  private static long number(List<Object> reply, int index) {
    Object value = index < reply.size() ? reply.get(index) : null;
    if (value instanceof Long n) {
      return n;
    }
    throw new GatewayException(GatewayException.Failure.AMBIGUOUS,
        "unexpected script reply element " + index + ": " + (value == null ? "nil" : value.getClass().getSimpleName()));
  }
}
