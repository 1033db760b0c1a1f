package dev.leasehold.model.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseRunner;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.testkit.lease.Callers;
import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseProperty;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.PropertyRunner;
import dev.leasehold.testkit.runner.Stats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The bounded liveness properties find what only they can name: a port that never grants, one
 * that grants an attempt only on its second try, a watchdog that stops silently after its first
 * renewal, and a withLease that never replays an Indeterminate acquire. Each defect is planted on
 * the library's own code (a wrapper around the fixed adapter, the watchdog's executor or the
 * runner's port) in the fast suite's chains, and must be found on every seed, shrunk, and named by
 * its property; the same chains pass without it (SimulatedLeasePropertiesUnitTests).
 */
class LivenessDefectsUnitTests {
  private static final int SEEDS = 5;
  private static final int CHAINS = 500;
  private static final WorldConfig BASE = WorldConfig.simulated(PortFactory.FIXED);

  @Test
  void aPortThatNeverGrantsFailsGrantedWhenFree() {
    assertFoundOnEverySeed(BASE.withPorts(hidingGrants(false)), LeaseProperty.GrantedWhenFree);
  }

  @Test
  void aPortThatGrantsOnlyOnTheSecondTryFailsGrantedWhenFree() {
    assertFoundOnEverySeed(BASE.withPorts(hidingGrants(true)), LeaseProperty.GrantedWhenFree);
  }

  @Test
  void aWatchdogThatStopsAfterItsFirstRenewalFailsWatchedStaysActive() {
    assertFoundOnEverySeed(BASE.withCallers(new SilentAfterFirstWake()), LeaseProperty.WatchedStaysActive);
  }

  @Test
  void aRunnerThatNeverReplaysFailsIndeterminateIsReplayed() {
    assertFoundOnEverySeed(BASE.withCallers(new NeverReplaying()), LeaseProperty.IndeterminateIsReplayed);
  }

  /** On each seed the chains find the defect, and the chain it shrinks to fails the same property. */
  private static void assertFoundOnEverySeed(WorldConfig config, LeaseProperty expected) {
    LeaseMachine machine = new LeaseMachine(config);
    List<String> found = new ArrayList<>();
    PropertyRunner.Failure example = null;
    for (int seed = 1; seed <= SEEDS; seed++) {
      PropertyRunner.Report r = new PropertyRunner<>(machine).printTo(s -> {})
          .run(PropertyRunner.Config.of(seed * 1_000_003L, CHAINS, ModelSettings.maxLength()));
      int s = seed;
      PropertyRunner.Failure f = r.failure()
          .orElseThrow(() -> new AssertionError(expected + "'s defect not found on seed " + s + " in " + CHAINS + " chains"));
      assertEquals(expected.name(), f.violation().property(), f::rendered);
      PropertyRunner.ChainResult again = new PropertyRunner<>(machine).replay(f.chainSeed(), f.shrunk(), new Stats());
      assertEquals(expected.name(), again.failed() ? again.violation().property() : "passed", f::rendered);
      found.add("seed " + s + ": chain " + (f.chainIndex() + 1) + ", " + f.shrunk().size() + " steps");
      if (example == null || f.shrunk().size() < example.shrunk().size()) {
        example = f;
      }
    }
    assertFalse(found.isEmpty());
    System.out.println(expected + " found: " + found + "; the shortest:\n" + example.rendered());
  }

  /**
   * The fixed adapter behind a port that reports a grant as Contended: every grant
   * ({@code onlyFirst} false), or only an attempt's first (its next try, a replay, is granted).
   * The server keeps the lease it granted, as a lost reply would leave it.
   */
  private static PortFactory hidingGrants(boolean onlyFirst) {
    return (gateway, clock, drift, mode, random, sleeper) -> new HidingGrants(
        PortFactory.FIXED.create(gateway, clock, drift, mode, random, sleeper), onlyFirst);
  }

  /** A port that answers as {@code port} does, but for what a defect's {@code tryAcquire} changes. */
  private abstract static class ForwardingPort implements DistributedLeasePort {
    final DistributedLeasePort port;

    ForwardingPort(DistributedLeasePort port) {
      this.port = port;
    }

    @Override
    public LeaseAttempt newAttempt(String operationId) {
      return port.newAttempt(operationId);
    }

    @Override
    public InspectOutcome inspect(LeaseInspection inspection) {
      return port.inspect(inspection);
    }

    @Override
    public LeaseGuarantee guarantee() {
      return port.guarantee();
    }
  }

  private static final class HidingGrants extends ForwardingPort {
    private final boolean onlyFirst;
    private final Set<LeaseAttempt> hidden = new HashSet<>();

    HidingGrants(DistributedLeasePort port, boolean onlyFirst) {
      super(port);
      this.onlyFirst = onlyFirst;
    }

    @Override
    public AcquireOutcome tryAcquire(LeaseRequest request) {
      AcquireOutcome out = port.tryAcquire(request);
      boolean granted = out instanceof AcquireOutcome.Acquired || out instanceof AcquireOutcome.ReplayedSameOperation;
      if (granted && (!onlyFirst || hidden.add(request.attempt()))) {
        return new AcquireOutcome.Contended(Duration.ofMillis(50));
      }
      return out;
    }

  }

  /**
   * The library's watchdog on an executor that runs its first wake and turns every wake planned
   * after it into one that does nothing: the watchdog renews once, then never again, and tells
   * no one.
   */
  private static final class SilentAfterFirstWake implements Callers {
    @Override
    public LeaseWatchdog watchdog(ScheduledExecutorService executor, LongSupplier monotonicNanos) {
      return Callers.LIBRARY.watchdog(new DroppingExecutor(executor), monotonicNanos);
    }

    @Override
    public LeaseRunner runner(DistributedLeasePort port, LeaseWatchdog watchdog) {
      return Callers.LIBRARY.runner(port, watchdog);
    }
  }

  /** Runs the first task planned with a delay; each planned after that one ran does nothing. */
  private static final class DroppingExecutor extends AbstractExecutorService implements ScheduledExecutorService {
    private final ScheduledExecutorService executor;
    private boolean ran;

    DroppingExecutor(ScheduledExecutorService executor) {
      this.executor = executor;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      Runnable body = ran ? () -> { } : () -> {
        ran = true;
        command.run();
      };
      return executor.schedule(body, delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException("the watchdog plans Runnables");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
      throw new UnsupportedOperationException("the watchdog plans each wake itself");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException("the watchdog plans each wake itself");
    }

    @Override
    public void execute(Runnable command) {
      executor.execute(command);
    }

    @Override
    public void shutdown() {
      executor.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
      return executor.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
      return executor.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return executor.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return executor.awaitTermination(timeout, unit);
    }
  }

  /**
   * The library's runner over a port that answers its replay of an Indeterminate try with that
   * same Indeterminate, sending nothing: a withLease that never replays.
   */
  private static final class NeverReplaying implements Callers {
    @Override
    public LeaseWatchdog watchdog(ScheduledExecutorService executor, LongSupplier monotonicNanos) {
      return Callers.LIBRARY.watchdog(executor, monotonicNanos);
    }

    @Override
    public LeaseRunner runner(DistributedLeasePort port, LeaseWatchdog watchdog) {
      return Callers.LIBRARY.runner(new SwallowingReplays(port), watchdog);
    }
  }

  private static final class SwallowingReplays extends ForwardingPort {
    /** The attempt whose last try was Indeterminate, and that answer; null for none. */
    private LeaseAttempt ambiguous;
    private AcquireOutcome answer;

    SwallowingReplays(DistributedLeasePort port) {
      super(port);
    }

    @Override
    public AcquireOutcome tryAcquire(LeaseRequest request) {
      if (request.attempt().equals(ambiguous)) {
        ambiguous = null;
        return answer;
      }
      AcquireOutcome out = port.tryAcquire(request);
      if (out instanceof AcquireOutcome.Indeterminate) {
        ambiguous = request.attempt();
        answer = out;
      }
      return out;
    }

  }
}
