package dev.leasehold.bench;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.RenewOutcome;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Renew alone: each thread holds one lease (acquired per iteration, outside the measurement) and
 * renews it to the full TTL again and again through the adapter's RENEW script.
 *
 * <p>This class is not threadsafe; JMH gives each thread its own {@link Held}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RenewBenchmark {

  /** One thread's lease. */
  @State(Scope.Thread)
  public static class Held {
    LeaseHandle handle;

    @Setup(Level.Iteration)
    public void acquire(AcquireReleaseBenchmark.Adapter a) {
      AcquireOutcome outcome = a.port.tryAcquire(LeaseRequest.once(BenchRedis.PURPOSE, BenchRedis.newDigest(),
          AcquireReleaseBenchmark.TTL, a.port.newAttempt("renew-bench")));
      if (!(outcome instanceof AcquireOutcome.Acquired granted)) {
        throw new IllegalStateException("renew setup acquire: " + outcome);
      }
      handle = granted.handle();
    }

    @TearDown(Level.Iteration)
    public void release() {
      handle.release();
    }
  }

  @Benchmark
  public RenewOutcome adapter(Held held, CpuMeter cpu) {
    RenewOutcome outcome = held.handle.renew(AcquireReleaseBenchmark.TTL);
    if (!(outcome instanceof RenewOutcome.Renewed)) {
      throw new IllegalStateException("adapter renew: " + outcome);
    }
    cpu.done();
    return outcome;
  }
}
