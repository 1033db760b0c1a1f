package dev.leasehold.bench;

import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseAdapter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The adapter's own work per acquire+release, without Redis: the same calls as
 * {@link AcquireReleaseBenchmark#adapter} over a gateway that answers at once (a grant with the
 * next token, then a delete). What is left is what the client path costs per call: the attempt
 * and its owner token, argument checks, the ledger, the handle and its belief. The report sets it
 * against the adapter's acquire+release over lettuce in the same run.
 *
 * <p>This class is not threadsafe; JMH gives each thread its own {@link AcquireReleaseBenchmark.Resource}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ClientPathBenchmark {

  /** The adapter with its defaults over a gateway that never does I/O. */
  @State(Scope.Benchmark)
  public static class NoIo {
    RedisLeaseAdapter port;

    @Setup
    public void open() {
      port = RedisLeaseAdapter.builder(new InstantGateway()).build();
    }
  }

  @Benchmark
  public ReleaseOutcome adapter(NoIo a, AcquireReleaseBenchmark.Resource r) {
    return AcquireReleaseBenchmark.acquireAndRelease(a.port, r);
  }

  /** Grants every ACQUIRE with the next token and the full TTL; every RELEASE deletes. Threadsafe. */
  static final class InstantGateway implements LeaseGateway {
    private final AtomicLong tokens = new AtomicLong();

    @Override
    public GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode, long counterRetentionMillis) {
      return new GatewayReply.Granted(tokens.incrementAndGet());
    }

    @Override
    public GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis) {
      return GatewayReply.Change.APPLIED;
    }

    @Override
    public GatewayReply.Change release(LeaseKeys keys, String ownership) {
      return GatewayReply.Change.APPLIED;
    }

    @Override
    public GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
      return new GatewayReply.Vacant();
    }

    @Override
    public long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout) {
      return 0;
    }

    @Override
    public void close() {}
  }
}
