package dev.leasehold.testkit.lease;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.fault.Backend;
import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.RealBackend;
import dev.leasehold.testkit.fault.SimBackend;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * How a property chain is set up.
 *
 * <p>This record is immutable.
 *
 * @param backend makes the server of one chain (a fresh simulated one, or a real one shared by the class)
 * @param exact whether the server is simulated (the model predicts exactly)
 * @param ports makes the adapter under test
 * @param drift the adapter's drift budget; the drift fault lags the client clock by up to it
 * @param excluded action names never generated
 * @param timeStepMicros the granularity of generated time steps (1000 = whole ms)
 * @param specConformant generate only what spec/Lease.tla can express (for trace validation)
 * @param maxTimeStepMs the longest tick
 * @param waits whether tryAcquire may ask for a wait timeout (the wait loop)
 * @param waived invariants not checked (only those a restart is known to break)
 */
public record WorldConfig(Supplier<Backend> backend, boolean exact, PortFactory ports, Duration drift,
    FenceMode fenceMode, Set<String> excluded, long timeStepMicros, boolean specConformant, long maxTimeStepMs,
    long minTtlMs, long maxTtlMs, boolean waits, Set<String> waived) {

  public WorldConfig {
    excluded = Set.copyOf(excluded);
    waived = Set.copyOf(waived);
  }

  /**
   * Restarts on: a restart without persistence loses the key under an ACTIVE handle, so
   * ActiveHoldsKey, ValidityWithinServerLease and MutualExclusion are waived (the spec shows that counterexample);
   * every other invariant, FencedEffects included, must still hold.
   */
  public WorldConfig withRestarts() {
    return including("restart").waiving("ActiveHoldsKey", "ValidityWithinServerLease", "MutualExclusion");
  }

  /**
   * Outside writes on the lease key on ({@link External}): a DEL or SET from outside
   * takes the key from under an ACTIVE handle, so ActiveHoldsKey, ValidityWithinServerLease and
   * MutualExclusion are waived, as for restarts; the adapter must still agree with the twin, tell
   * only the truth (CertaintyIsHonest), never hand out another value's lease (NoInheritance) and
   * keep FencedEffects.
   */
  public WorldConfig withExternalWrites() {
    return including(External.actions().toArray(String[]::new))
        .waiving("ActiveHoldsKey", "ValidityWithinServerLease", "MutualExclusion");
  }

  /** Also does not check {@code invariants} (for a fence mode a restart is known to break). */
  public WorldConfig waiving(String... invariants) {
    Set<String> all = new HashSet<>(waived);
    all.addAll(List.of(invariants));
    return new WorldConfig(backend, exact, ports, drift, fenceMode, excluded, timeStepMicros, specConformant,
        maxTimeStepMs, minTtlMs, maxTtlMs, waits, all);
  }

  /**
   * Every action but restart, the outside writes and the concurrent steps on the simulated server: a restart without
   * persistence or an outside DEL loses the key under an ACTIVE handle, which the spec's THEOREM excludes (its
   * counterexample is tested apart).
   */
  public static WorldConfig simulated(PortFactory ports) {
    Set<String> off = new HashSet<>(List.of("restart", "renewBesideReplay", "releaseBesideReplay"));
    off.addAll(External.actions());
    return new WorldConfig(SimBackend::new, true, ports, Duration.ofMillis(10), FenceMode.CLOCK_FLOOR, off, 1, false,
        150, 20, 300, true, Set.of());
  }

  /** With the concurrent steps (LeaseMachine.CONCURRENT): a replay beside a renew or release of one handle. */
  public WorldConfig withConcurrentSteps() {
    return including(LeaseMachine.CONCURRENT.toArray(String[]::new));
  }

  /**
   * The same chains on a real server: each chain on {@code real}'s connection over the kit's own
   * keys, real time in whole ms (steps up to 60 ms), TTLs of 50-200 ms so that real-time jitter
   * stays inside the drift budget.
   */
  public WorldConfig onRealServer(RealBackend real) {
    // No slow replies, no watchdog: the twin's clock follows real time only between steps, not
    // inside a call or a tick.
    return withBackend(() -> real.chain(LeaseWorld.KEYS), false).withTimes(1_000, 60, 50, 200)
        .withoutLaterActions();
  }

  /** None of {@link LeaseMachine#LATER_ACTIONS}: the actions the seed defects were measured without. */
  public WorldConfig withoutLaterActions() {
    return excluding(LeaseMachine.LATER_ACTIONS.toArray(String[]::new));
  }

  public WorldConfig withBackend(Supplier<Backend> b, boolean isExact) {
    return new WorldConfig(b, isExact, ports, drift, fenceMode, excluded, timeStepMicros, specConformant,
        maxTimeStepMs, minTtlMs, maxTtlMs, waits, waived);
  }

  public WorldConfig excluding(String... names) {
    Set<String> all = new HashSet<>(excluded);
    all.addAll(List.of(names));
    return new WorldConfig(backend, exact, ports, drift, fenceMode, all, timeStepMicros, specConformant,
        maxTimeStepMs, minTtlMs, maxTtlMs, waits, waived);
  }

  public WorldConfig including(String... names) {
    Set<String> all = new HashSet<>(excluded);
    all.removeAll(List.of(names));
    return new WorldConfig(backend, exact, ports, drift, fenceMode, all, timeStepMicros, specConformant,
        maxTimeStepMs, minTtlMs, maxTtlMs, waits, waived);
  }

  public WorldConfig withFenceMode(FenceMode mode) {
    return new WorldConfig(backend, exact, ports, drift, mode, excluded, timeStepMicros, specConformant,
        maxTimeStepMs, minTtlMs, maxTtlMs, waits, waived);
  }

  public WorldConfig withPorts(PortFactory p) {
    return new WorldConfig(backend, exact, p, drift, fenceMode, excluded, timeStepMicros, specConformant,
        maxTimeStepMs, minTtlMs, maxTtlMs, waits, waived);
  }

  public WorldConfig withDrift(Duration d) {
    return new WorldConfig(backend, exact, ports, d, fenceMode, excluded, timeStepMicros, specConformant,
        maxTimeStepMs, minTtlMs, maxTtlMs, waits, waived);
  }

  public WorldConfig withTimes(long stepMicros, long maxStepMs, long minTtl, long maxTtl) {
    return new WorldConfig(backend, exact, ports, drift, fenceMode, excluded, stepMicros, specConformant,
        maxStepMs, minTtl, maxTtl, waits, waived);
  }

  /** No wait loop: every tryAcquire tries once. */
  public WorldConfig withoutWaitLoop() {
    return new WorldConfig(backend, exact, ports, drift, fenceMode, excluded, timeStepMicros, specConformant,
        maxTimeStepMs, minTtlMs, maxTtlMs, false, waived);
  }

  /**
   * Only what spec/Lease.tla expresses and the trace check maps: time in 10 ms ticks (a wait-loop
   * pause ends on the next tick), a lag that only grows, none of {@link LeaseMachine#LATER_ACTIONS}
   * (a slow reply's Ticks inside a call and the watchdog's calls inside a tick are not mapped to
   * spec steps yet). The wait loop stays as configured: its tries are the spec's sends.
   */
  public WorldConfig conformingToSpec() {
    return new WorldConfig(backend, exact, ports, drift, fenceMode, excluded, 10_000, true, maxTimeStepMs,
        minTtlMs, maxTtlMs, waits, waived).withoutLaterActions();
  }

  /**
   * How long a wait-loop pause asked at {@code now} lasts: as asked, or, in a chain that conforms
   * to the spec, until the next whole tick, so that the trace stays on the spec's clock (a sleep
   * may always end late).
   */
  long pauseNanos(long now, long requested) {
    if (!specConformant) {
      return requested;
    }
    long grid = timeStepMicros * 1_000L;
    return Math.floorDiv(now + requested + grid - 1, grid) * grid - now;
  }

  public boolean allows(String action) {
    return !excluded.contains(action);
  }
}
