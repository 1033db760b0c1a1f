package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.fault.Backend;
import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.sim.LeaseClock;
import java.util.function.Supplier;

/**
 * The chain's steps that happen to the server or to the calls rather than being calls: faults
 * armed for the next call, a delayed request applied late, a restart, SCRIPT FLUSH, outside writes. Each is made
 * on both the world's server and its twin, and returns what the step did for the invariants.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class ServerFaults {
  private final FaultyGateway gateway;
  private final Backend backend;
  private final LeaseClock clock;
  private final Oracle oracle;
  private final TraceRecorder recorder;
  private final Supplier<Snapshot> snapshots;
  private final long restartNanos;

  /**
   * {@code snapshots} reads the implementation's side before a step that changes the server;
   * {@code restartNanos} is how long a restart takes on the chain's clock.
   */
  ServerFaults(FaultyGateway gateway, Backend backend, LeaseClock clock, Oracle oracle, TraceRecorder recorder,
      Supplier<Snapshot> snapshots, long restartNanos) {
    this.gateway = gateway;
    this.backend = backend;
    this.clock = clock;
    this.oracle = oracle;
    this.recorder = recorder;
    this.snapshots = snapshots;
    this.restartNanos = restartNanos;
  }

  /** The next call meets {@code f}; a slow reply takes {@code nanos}. */
  StepEvent arm(Fault f, long nanos) {
    Fault.Armed armed = new Fault.Armed(f, nanos);
    gateway.arm(armed);
    oracle.twin().arm(armed);
    return StepEvent.none(f.name(), null);
  }

  StepEvent applyLate(int index) {
    Snapshot before = snapshots.get();
    recorder.late(gateway.applyLate(index));
    oracle.twin().applyLate(index);
    return StepEvent.none(ActionName.APPLY_LATE.chainName(), before);
  }

  StepEvent restart() {
    clock.advance(restartNanos);
    oracle.twin().tick(restartNanos);
    backend.restart();
    oracle.twin().restart();
    return StepEvent.none(ActionName.RESTART.chainName(), null);
  }

  /** Someone else's command on the lease key; an overwrite or retype lives {@code ttlMs}. */
  StepEvent external(External write, long ttlMs) {
    Snapshot before = snapshots.get();
    backend.external(write, LeaseWorld.KEYS, ttlMs);
    oracle.twin().external(write, ttlMs);
    return StepEvent.none(write.action(), before);
  }

  StepEvent flushScripts() {
    backend.flushScripts();
    return StepEvent.none(ActionName.FLUSH_SCRIPTS.chainName(), null);
  }
}
