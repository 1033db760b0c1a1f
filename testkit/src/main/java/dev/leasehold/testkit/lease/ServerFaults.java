package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.Fault;

/**
 * The chain's steps that happen to the server or to the calls rather than being calls: faults
 * armed for the next call, a delayed request applied late, a restart, SCRIPT FLUSH, outside writes. Each is made
 * on both the world's server and its twin.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class ServerFaults {
  private final LeaseWorld w;

  ServerFaults(LeaseWorld world) {
    this.w = world;
  }

  /** The next call meets {@code f}; a slow reply takes {@code nanos}. */
  void arm(Fault f, long nanos) {
    Fault.Armed armed = new Fault.Armed(f, nanos);
    w.gateway.arm(armed);
    w.model.arm(armed);
    w.noEvent(f.name());
  }

  void applyLate(int index) {
    Snapshot before = w.snapshot();
    w.recorder.late(w.gateway.applyLate(index));
    w.model.applyLate(index);
    w.serverEvent("applyLate", before);
  }

  void restart() {
    // A restart takes time: the spec's Restart takes one tick, and CLOCK_FLOOR's guarantee assumes
    // it (a restart within the microsecond of the last grant would issue that token again).
    long tick = w.config.specConformant() ? w.config.timeStepMicros() * 1_000L : 1_000_000L;
    w.clock.advance(tick);
    w.model.tick(tick);
    w.backend.restart();
    w.model.restart();
    w.noEvent("restart");
  }

  /** Someone else's command on the lease key; an overwrite or retype lives {@code ttlMs}. */
  void external(External write, long ttlMs) {
    Snapshot before = w.snapshot();
    w.backend.external(write, LeaseWorld.KEYS, ttlMs);
    w.model.external(write, ttlMs);
    w.serverEvent(write.action(), before);
  }

  void flushScripts() {
    w.backend.flushScripts();
    w.noEvent("flushScripts");
  }
}
