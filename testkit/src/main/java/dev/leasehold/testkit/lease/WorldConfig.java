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
 * @param callers makes the watchdog and the runner the chain calls the adapter through
 * @param drift the adapter's drift budget; the drift fault lags the client clock by up to it
 * @param fenceMode how the adapter issues fencing tokens
 * @param excluded action names never generated
 * @param timeStepMicros the granularity of generated time steps (1000 = whole ms)
 * @param specConformant generate only what spec/Lease.tla can express (for trace validation)
 * @param maxTimeStepMs the longest tick
 * @param minTtlMs the shortest TTL drawn
 * @param maxTtlMs the longest TTL drawn
 * @param waits whether tryAcquire may ask for a wait timeout (the wait loop)
 * @param waived invariants not checked (only those a restart or an outside write is known to break)
 */
public record WorldConfig(Supplier<Backend> backend, boolean exact, PortFactory ports, Callers callers, Duration drift,
    FenceMode fenceMode, Set<String> excluded, long timeStepMicros, boolean specConformant, long maxTimeStepMs,
    long minTtlMs, long maxTtlMs, boolean waits, Set<LeaseProperty> waived) {

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
    return including(ActionName.RESTART.chainName()).waiving(LeaseProperty.ActiveHoldsKey,
        LeaseProperty.ValidityWithinServerLease, LeaseProperty.MutualExclusion);
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
        .waiving(LeaseProperty.ActiveHoldsKey, LeaseProperty.ValidityWithinServerLease, LeaseProperty.MutualExclusion);
  }

  /** Also does not check {@code invariants} (for a fence mode a restart is known to break). */
  public WorldConfig waiving(LeaseProperty... invariants) {
    Set<LeaseProperty> all = new HashSet<>(waived);
    all.addAll(List.of(invariants));
    return toBuilder().waived(all).build();
  }

  /**
   * Every action but restart, the outside writes and the concurrent steps on the simulated server: a restart without
   * persistence or an outside DEL loses the key under an ACTIVE handle, which the spec's THEOREM excludes (its
   * counterexample is tested apart).
   */
  public static WorldConfig simulated(PortFactory ports) {
    return builder(ports).build();
  }

  /** The actions a simulated server leaves out: see {@link #simulated}. */
  private static Set<String> simulatedOff() {
    Set<String> off = new HashSet<>(List.of("restart", "renewBesideReplay", "releaseBesideReplay"));
    off.addAll(External.actions());
    return off;
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
    return toBuilder().backend(b, isExact).build();
  }

  public WorldConfig excluding(String... names) {
    Set<String> all = new HashSet<>(excluded);
    all.addAll(List.of(names));
    return toBuilder().excluded(all).build();
  }

  public WorldConfig including(String... names) {
    Set<String> all = new HashSet<>(excluded);
    all.removeAll(List.of(names));
    return toBuilder().excluded(all).build();
  }

  public WorldConfig withFenceMode(FenceMode mode) {
    return toBuilder().fenceMode(mode).build();
  }

  public WorldConfig withPorts(PortFactory p) {
    return toBuilder().ports(p).build();
  }

  public WorldConfig withCallers(Callers c) {
    return toBuilder().callers(c).build();
  }

  public WorldConfig withDrift(Duration d) {
    return toBuilder().drift(d).build();
  }

  public WorldConfig withTimes(long stepMicros, long maxStepMs, long minTtl, long maxTtl) {
    return toBuilder().times(stepMicros, maxStepMs, minTtl, maxTtl).build();
  }

  /** No wait loop: every tryAcquire tries once. */
  public WorldConfig withoutWaitLoop() {
    return toBuilder().waits(false).build();
  }

  /**
   * Only what spec/Lease.tla expresses and the trace check maps: time in 10 ms ticks (a wait-loop
   * pause ends on the next tick, the watchdog sends a renewal at the first tick at or after it is
   * due), a lag that only grows, and of {@link LeaseMachine#LATER_ACTIONS} only {@code watch}: its
   * batches are Renew steps of distinct attempts at one instant. A slow reply's time inside a call,
   * a lasting refusal and withLease are not mapped to spec steps. The wait loop stays as
   * configured: its tries are the spec's sends.
   */
  public WorldConfig conformingToSpec() {
    return toBuilder().timeStepMicros(10_000).specConformant(true).build().withoutLaterActions()
        .including(ActionName.WATCH.chainName());
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

  /**
   * A builder with the simulated server's settings ({@link #simulated}) for the adapter {@code ports}
   * makes, to change some of them by name.
   */
  public static Builder builder(PortFactory ports) {
    return new Builder().ports(ports);
  }

  /** A builder with this configuration's settings, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Builds a {@link WorldConfig} one named setting at a time, from the settings of another; see the
   * record's components for what each means.
   *
   * <p>This class is not threadsafe; a builder is used by one thread and then dropped.
   */
  public static final class Builder {
    // The simulated server's settings.
    private Supplier<Backend> backend = SimBackend::new;
    private boolean exact = true;
    private PortFactory ports;
    private Callers callers = Callers.LIBRARY;
    private Duration drift = Duration.ofMillis(10);
    private FenceMode fenceMode = FenceMode.CLOCK_FLOOR;
    private Set<String> excluded = simulatedOff();
    private long timeStepMicros = 1;
    private boolean specConformant;
    private long maxTimeStepMs = 150;
    private long minTtlMs = 20;
    private long maxTtlMs = 300;
    private boolean waits = true;
    private Set<LeaseProperty> waived = Set.of();

    private Builder() {}

    private Builder(WorldConfig c) {
      backend = c.backend;
      exact = c.exact;
      ports = c.ports;
      callers = c.callers;
      drift = c.drift;
      fenceMode = c.fenceMode;
      excluded = c.excluded;
      timeStepMicros = c.timeStepMicros;
      specConformant = c.specConformant;
      maxTimeStepMs = c.maxTimeStepMs;
      minTtlMs = c.minTtlMs;
      maxTtlMs = c.maxTtlMs;
      waits = c.waits;
      waived = c.waived;
    }

    /** The server of each chain, and whether it is simulated (the twin then predicts exactly). */
    public Builder backend(Supplier<Backend> b, boolean isExact) {
      backend = b;
      exact = isExact;
      return this;
    }

    public Builder ports(PortFactory p) {
      ports = p;
      return this;
    }

    public Builder callers(Callers c) {
      callers = c;
      return this;
    }

    public Builder drift(Duration d) {
      drift = d;
      return this;
    }

    public Builder fenceMode(FenceMode mode) {
      fenceMode = mode;
      return this;
    }

    public Builder excluded(Set<String> names) {
      excluded = names;
      return this;
    }

    public Builder timeStepMicros(long micros) {
      timeStepMicros = micros;
      return this;
    }

    public Builder specConformant(boolean conformant) {
      specConformant = conformant;
      return this;
    }

    /** The granularity of time steps, the longest tick, and the TTLs drawn. */
    public Builder times(long stepMicros, long maxStepMs, long minTtl, long maxTtl) {
      timeStepMicros = stepMicros;
      maxTimeStepMs = maxStepMs;
      minTtlMs = minTtl;
      maxTtlMs = maxTtl;
      return this;
    }

    public Builder waits(boolean on) {
      waits = on;
      return this;
    }

    public Builder waived(Set<LeaseProperty> invariants) {
      waived = invariants;
      return this;
    }

    public WorldConfig build() {
      return new WorldConfig(backend, exact, ports, callers, drift, fenceMode, excluded, timeStepMicros, specConformant,
          maxTimeStepMs, minTtlMs, maxTtlMs, waits, waived);
    }
  }
}
