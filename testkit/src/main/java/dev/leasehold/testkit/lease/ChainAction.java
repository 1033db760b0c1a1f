package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.Fault;

/**
 * One step of a {@link LeaseMachine} chain, decoded from the runner's step (its
 * {@code name(param=value)} line in a chain file, which keeps that form) and run by
 * {@link LeaseWorld#apply}. Times are on the chain's grid already; a field named {@code attempt} or {@code handle} is the chain's choice
 * among those the step may use, which the world resolves (modulo their number) when it runs.
 *
 * <p>Each record is immutable.
 */
sealed interface ChainAction {
  /**
   * The action's name in chains and statistics: the record's name in camel case, which is its
   * {@link ActionName}'s (LeaseMachineUnitTests holds each record to its kind), or its fault's or
   * outside write's.
   */
  default String name() {
    String type = getClass().getSimpleName();
    return Character.toLowerCase(type.charAt(0)) + type.substring(1);
  }

  /** A new attempt; {@code shareOwnerWith} 0 gets a new owner token, n shares attempt n-1's (modulo). */
  record NewAttempt(long shareOwnerWith) implements ChainAction {}

  /** The first tryAcquire of an attempt not yet sent. */
  record TryAcquire(long attempt, long ttlMs, long waitMs) implements ChainAction {}

  /** A tryAcquire of an attempt already sent, with its owner and operation id. */
  record Replay(long attempt, long ttlMs, long waitMs) implements ChainAction {}

  record Renew(long handle, long ttlMs) implements ChainAction {}

  record Release(long handle) implements ChainAction {}

  record Inspect(long attempt) implements ChainAction {}

  /** state() of a handle, against the twin's. */
  record State(long handle) implements ChainAction {}

  /** Time passes; the watchdog renews when due. */
  record Tick(long nanos) implements ChainAction {}

  /** Time passes and nothing of the process runs. */
  record Pause(long nanos) implements ChainAction {}

  /** The client clock lags the server's by {@code nanos} from now on. */
  record Lag(long nanos) implements ChainAction {}

  /** The next gateway call meets {@code fault}; a slow reply takes {@code nanos}. Named by the fault. */
  record Arm(Fault fault, long nanos) implements ChainAction {
    @Override
    public String name() {
      return fault.action();
    }
  }

  /** A delayed request reaches the server: the chain's choice among them. */
  record ApplyLate(long index) implements ChainAction {}

  /** Someone else's command on the lease key. Named by the write. */
  record Write(External write, long ttlMs) implements ChainAction {
    @Override
    public String name() {
      return write.action();
    }
  }

  record FlushScripts() implements ChainAction {}

  record Restart() implements ChainAction {}

  /**
   * A replay of the handle's attempt beside a renew of the handle ({@link ConcurrentStep}); the
   * handle counts back from the newest.
   */
  record RenewBesideReplay(long handle, long ttlMs, long replayTtlMs, int schedule) implements ChainAction {}

  /** A replay of the handle's attempt beside a release of the handle; the handle counts back from the newest. */
  record ReleaseBesideReplay(long handle, long replayTtlMs, int schedule) implements ChainAction {}

  /** The watchdog renews the handle with {@code ttlMs} from now on; the handle counts back from the newest. */
  record Watch(long handle, long ttlMs) implements ChainAction {}

  /** LeaseRunner acquires an unsent attempt, works {@code workNanos}, stalls {@code pauseNanos}, releases. */
  record WithLease(long attempt, long ttlMs, long workNanos, long pauseNanos) implements ChainAction {}

  /** A client writes its effect with the handle's token: after checking ACTIVE, or on stale belief. */
  record Effect(long handle, boolean stale) implements ChainAction {}
}
