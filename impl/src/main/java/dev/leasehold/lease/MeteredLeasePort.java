package dev.leasehold.lease;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A {@link DistributedLeasePort} decorator that meters every operation with Micrometer, and wraps
 * every handle it returns in a {@link MeteredLeaseHandle} so renewals and releases are metered too.
 *
 * <p>Meters (all names start with the prefix, {@code leasehold} by default):
 * <ul>
 *   <li>{@code leasehold.operations} timer, tag {@code operation} = acquire, renew, release,
 *       inspect; an acquire's time includes its waiting;</li>
 *   <li>{@code leasehold.outcomes} counter, tags {@code operation} and {@code outcome} = the
 *       outcome variant's simple name ({@code Acquired}, {@code Contended}, ...). Every variant is
 *       registered up front, so an outcome that never happened reads 0;</li>
 *   <li>{@code leasehold.results} counter, tag {@code result} = the {@link LeaseResult} variant,
 *       through {@link #recordResult(LeaseResult)}.</li>
 * </ul>
 * No tag carries an owner token, an operation id or a resource digest, so cardinality stays fixed.
 *
 * <p>This class is threadsafe.
 */
public final class MeteredLeasePort implements DistributedLeasePort {
  /** The prefix of every meter name. */
  public static final String DEFAULT_PREFIX = "leasehold";

  private final DistributedLeasePort delegate;
  private final MeterRegistry registry;
  private final String prefix;
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  /** @throws IllegalArgumentException if an argument is null */
  public MeteredLeasePort(DistributedLeasePort delegate, MeterRegistry registry) {
    this(delegate, registry, DEFAULT_PREFIX);
  }

  /** @throws IllegalArgumentException if an argument is null */
  public MeteredLeasePort(DistributedLeasePort delegate, MeterRegistry registry, String prefix) {
    this.delegate = Checks.notNull("delegate", delegate);
    this.registry = Checks.notNull("registry", registry);
    this.prefix = Checks.notNull("prefix", prefix);
    register("acquire", AcquireOutcome.class);
    register("renew", RenewOutcome.class);
    register("release", ReleaseOutcome.class);
    register("inspect", InspectOutcome.class);
    for (Class<?> variant : LeaseResult.class.getPermittedSubclasses()) {
      resultCounter(variant.getSimpleName());
    }
  }

  private void register(String operation, Class<?> sealed) {
    timer(operation);
    for (Class<?> variant : sealed.getPermittedSubclasses()) {
      counter(operation, variant.getSimpleName());
    }
  }

  public DistributedLeasePort delegate() {
    return delegate;
  }

  @Override
  public LeaseAttempt newAttempt(String operationId) {
    return delegate.newAttempt(operationId);
  }

  @Override
  public AcquireOutcome tryAcquire(LeaseRequest request) {
    AcquireOutcome outcome = time("acquire", () -> delegate.tryAcquire(request));
    if (outcome instanceof AcquireOutcome.Acquired a) {
      return new AcquireOutcome.Acquired(wrap(a.handle()));
    }
    if (outcome instanceof AcquireOutcome.ReplayedSameOperation r) {
      return new AcquireOutcome.ReplayedSameOperation(wrap(r.handle()));
    }
    return outcome;
  }

  private LeaseHandle wrap(LeaseHandle handle) {
    return handle instanceof MeteredLeaseHandle ? handle : new MeteredLeaseHandle(handle, this);
  }

  @Override
  public InspectOutcome inspect(LeaseInspection inspection) {
    return time("inspect", () -> delegate.inspect(inspection));
  }

  @Override
  public LeaseGuarantee guarantee() {
    return delegate.guarantee();
  }

  /** Counts one {@code withLease} result. */
  public void recordResult(LeaseResult<?> result) {
    resultCounter(result.getClass().getSimpleName()).increment();
  }

  /** Times {@code call} under {@code operation} and counts its outcome by variant. */
  <R> R time(String operation, Supplier<R> call) {
    long start = System.nanoTime();
    R outcome = call.get();
    timer(operation).record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
    counter(operation, outcome.getClass().getSimpleName()).increment();
    return outcome;
  }

  /** As {@link #time}, for a call whose outcome arrives later: timed from now until it completes. */
  <R> CompletionStage<R> timeAsync(String operation, Supplier<CompletionStage<R>> call) {
    long start = System.nanoTime();
    return call.get().thenApply(outcome -> {
      timer(operation).record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
      counter(operation, outcome.getClass().getSimpleName()).increment();
      return outcome;
    });
  }

  private Timer timer(String operation) {
    return timers.computeIfAbsent(operation, op -> Timer.builder(prefix + ".operations")
        .description("Time of one lease operation; an acquire includes its waiting")
        .tag("operation", op)
        .register(registry));
  }

  private Counter counter(String operation, String outcome) {
    return counters.computeIfAbsent(operation + "/" + outcome, k -> Counter.builder(prefix + ".outcomes")
        .description("Lease operation outcomes by variant")
        .tag("operation", operation)
        .tag("outcome", outcome)
        .register(registry));
  }

  private Counter resultCounter(String result) {
    return counters.computeIfAbsent("withLease/" + result, k -> Counter.builder(prefix + ".results")
        .description("withLease results by variant")
        .tag("result", result)
        .register(registry));
  }
}
