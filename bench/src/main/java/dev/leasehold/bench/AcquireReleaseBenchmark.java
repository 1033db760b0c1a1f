package dev.leasehold.bench;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.LettuceLeaseGateway;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.redis.RedisLeaseConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * One uncontended acquire followed by its release: through the adapter (a fresh attempt, the
 * ACQUIRE script with its fencing token, the RELEASE script), the raw baseline on lettuce
 * ({@code SET NX PX} with a random token, then a Lua compare-and-delete) and Redisson
 * ({@code tryLock(0, ttl)}, {@code unlock}). Between raw and adapter, two steps split the
 * difference by what it pays for: {@link #rawScript} (the raw pair with its {@code SET NX PX} in a
 * script answering an array, as ACQUIRE answers: what a script costs before any guarantee) and
 * {@link #gateway} (the adapter's own scripts through {@link LettuceLeaseGateway}, without the
 * adapter: the fencing token, the clock floor, the ACL pre-check and the release signal). The rest,
 * from {@code gateway} to {@code adapter}, is the adapter's client side: attempts (with their own
 * owner tokens in place of {@code gateway}'s UUID), argument checks, ledgers, handles. Each
 * benchmark thread has its own resource, so threads never contend; lettuce shares one connection among all threads, Redisson uses its default pool.
 * Every operation checks its outcome and throws on anything but success, so a broken setup can
 * never look fast.
 *
 * <p>This class is not threadsafe; JMH gives each thread its own {@link Resource}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AcquireReleaseBenchmark {
  static final Duration TTL = Duration.ofSeconds(30);
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
  /** The raw baseline's release: delete only if the value is still ours. */
  static final String COMPARE_AND_DELETE =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
  /** {@link #rawScript}'s acquire: SET NX PX in a script, answered as ACQUIRE answers a grant ({1, token}), token 0. */
  static final String RAW_SCRIPT_ACQUIRE = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then"
      + " return {1, 0} end return {0, 0, 0}";

  /** The adapter with its defaults (fencing tokens in CLOCK_FLOOR mode) over one lettuce connection. */
  @State(Scope.Benchmark)
  public static class Adapter {
    LettuceLeaseGateway gateway;
    RedisLeaseAdapter port;

    @Setup
    public void open() {
      gateway = LettuceLeaseGateway.connect(BenchRedis.uri(), COMMAND_TIMEOUT);
      port = RedisLeaseAdapter.builder(gateway).build();
    }

    @TearDown
    public void close() {
      gateway.close();
    }
  }

  /** Plain lettuce, default client options, one shared connection. */
  @State(Scope.Benchmark)
  public static class Raw {
    RedisClient client;
    StatefulRedisConnection<String, String> connection;
    RedisCommands<String, String> commands;
    String releaseSha;
    String rawScriptAcquireSha;
    SetArgs setArgs;

    @Setup
    public void open() {
      client = RedisClient.create(BenchRedis.uri());
      connection = client.connect();
      connection.setTimeout(COMMAND_TIMEOUT);
      commands = connection.sync();
      releaseSha = commands.scriptLoad(COMPARE_AND_DELETE);
      rawScriptAcquireSha = commands.scriptLoad(RAW_SCRIPT_ACQUIRE);
      setArgs = SetArgs.Builder.nx().px(TTL.toMillis());
    }

    @TearDown
    public void close() {
      connection.close();
      client.shutdown();
    }
  }

  /** Redisson with its default single-server settings. */
  @State(Scope.Benchmark)
  public static class RedissonState {
    RedissonClient client;

    @Setup
    public void open() {
      Config config = new Config();
      config.useSingleServer().setAddress(BenchRedis.address()).setTimeout((int) COMMAND_TIMEOUT.toMillis());
      client = Redisson.create(config);
    }

    @TearDown
    public void close() {
      client.shutdown();
    }
  }

  /** What one benchmark thread locks: its own resource, key and Redisson lock. */
  @State(Scope.Thread)
  public static class Resource {
    String digest;
    String rawKey;
    /** {@link #gateway}'s keys: the adapter's shape, in a namespace of their own. */
    LeaseKeys gatewayKeys;
    long operations;

    @Setup
    public void pick() {
      digest = BenchRedis.newDigest();
      rawKey = "bench:raw:" + digest;
      String lease = "bench-gateway:lease:v1:{" + BenchRedis.PURPOSE + ":" + digest + "}";
      gatewayKeys = new LeaseKeys(lease);
    }

    String nextOperationId() {
      return "op-" + (operations++);
    }
  }

  @Benchmark
  public ReleaseOutcome adapter(Adapter a, Resource r, CpuMeter cpu) {
    ReleaseOutcome released = acquireAndRelease(a.port, r);
    cpu.done();
    return released;
  }

  /**
   * A fresh attempt's {@code tryAcquire(once)} on the thread's resource, then its release, each
   * checked (a grant must carry a fencing token): the adapter's benchmark, with or without I/O.
   */
  static ReleaseOutcome acquireAndRelease(RedisLeaseAdapter port, Resource r) {
    AcquireOutcome acquired = port.tryAcquire(
        LeaseRequest.once(BenchRedis.PURPOSE, r.digest, TTL, port.newAttempt(r.nextOperationId())));
    if (!(acquired instanceof AcquireOutcome.Acquired granted)) {
      throw new IllegalStateException("adapter acquire: " + acquired);
    }
    if (granted.handle().fencingToken().isEmpty()) {
      throw new IllegalStateException("adapter acquire without a fencing token");
    }
    ReleaseOutcome released = granted.handle().release();
    if (!(released instanceof ReleaseOutcome.Released)) {
      throw new IllegalStateException("adapter release: " + released);
    }
    return released;
  }

  @Benchmark
  public long raw(Raw raw, Resource r, CpuMeter cpu) {
    String token = UUID.randomUUID().toString();
    String set = raw.commands.set(r.rawKey, token, raw.setArgs);
    if (!"OK".equals(set)) {
      throw new IllegalStateException("raw SET NX PX: " + set);
    }
    return releaseRaw(raw, r, token, cpu);
  }

  @Benchmark
  public long rawScript(Raw raw, Resource r, CpuMeter cpu) {
    String token = UUID.randomUUID().toString();
    List<Object> set = raw.commands.evalsha(raw.rawScriptAcquireSha, ScriptOutputType.MULTI, new String[] {r.rawKey}, token,
        Long.toString(TTL.toMillis()));
    if (!Long.valueOf(1).equals(set.get(0))) {
      throw new IllegalStateException("raw SET NX PX in a script: " + set);
    }
    return releaseRaw(raw, r, token, cpu);
  }

  /** The raw pair's release, {@link #raw}'s and {@link #rawScript}'s alike: compare-and-delete, checked. */
  private static long releaseRaw(Raw raw, Resource r, String token, CpuMeter cpu) {
    Long deleted = raw.commands.evalsha(raw.releaseSha, ScriptOutputType.INTEGER, new String[] {r.rawKey}, token);
    if (deleted == null || deleted != 1L) {
      throw new IllegalStateException("raw compare-and-delete: " + deleted);
    }
    cpu.done();
    return deleted;
  }

  /**
   * The adapter's ACQUIRE (default fence mode) and RELEASE sent as the adapter sends them, with a
   * random token as {@link #raw} makes it, but no attempt, ledger or handle.
   */
  @Benchmark
  public GatewayReply.Change gateway(Adapter a, Resource r, CpuMeter cpu) {
    String ownerToken = UUID.randomUUID().toString();
    String ownership = ownerToken + ":" + r.nextOperationId();
    GatewayReply.Acquire acquired = a.gateway.acquire(r.gatewayKeys, ownership, ownerToken, TTL.toMillis(),
        RedisLeaseConfig.DEFAULT_FENCE_MODE, RedisLeaseConfig.DEFAULT_COUNTER_RETENTION.toMillis());
    if (!(acquired instanceof GatewayReply.Granted granted) || granted.fencingToken() <= 0) {
      throw new IllegalStateException("gateway acquire: " + acquired);
    }
    GatewayReply.Change released = a.gateway.release(r.gatewayKeys, ownership);
    if (released != GatewayReply.Change.APPLIED) {
      throw new IllegalStateException("gateway release: " + released);
    }
    cpu.done();
    return released;
  }

  @Benchmark
  public boolean redisson(RedissonState redisson, Resource r, CpuMeter cpu) throws InterruptedException {
    RLock lock = redisson.client.getLock("bench:redisson:" + r.digest);
    if (!lock.tryLock(0, TTL.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("redisson tryLock(0, ttl) failed on an uncontended lock");
    }
    lock.unlock();
    cpu.done();
    return true;
  }
}
