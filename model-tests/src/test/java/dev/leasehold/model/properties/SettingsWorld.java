package dev.leasehold.model.properties;

import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.sim.SimulatedGateway;
import dev.leasehold.testkit.sim.SimulatedRedis;
import dev.leasehold.testkit.sim.VirtualClock;
import dev.leasehold.testkit.twin.PauseBounds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One chain of {@link SettingsMachine}: a simulated server on virtual time, and the adapter of the
 * last configuration that built, with the handle it holds.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class SettingsWorld {
  final VirtualClock clock = new VirtualClock();
  final SimulatedRedis redis = new SimulatedRedis(clock);
  /** Records every call the adapter sends, WAITs included (drained into sent). */
  final FaultyGateway gateway = new FaultyGateway(new SimulatedGateway(redis));
  private final List<FaultyGateway.Call> sent = new ArrayList<>();
  Settings settings;
  RedisLeaseAdapter adapter;
  LeaseAttempt attempt;
  LeaseHandle handle;
  /** The guarantee the handle's grant earned: what a replay of the same grant must keep. */
  LeaseGuarantee granted;
  /** How the sleeper ends a pause: 0 lets virtual time pass, 1 is interrupted, 2 sets the flag and returns. */
  int sleepMode;
  /** The running wait's deadline on the client clock, and what its pauses broke. */
  long deadline;
  final List<String> pauseProblems = new ArrayList<>();

  /**
   * The adapter's sleeper: checks each pause against the documented bounds (between half and all
   * of the last try's retry-after, at least 1 ms, never past the deadline), then ends it.
   */
  SettingsWorld() {
    gateway.stampCallsWith(clock::trueNanos);
  }

  /** Calls the adapter sent so far: "before any I/O" is a count that did not move. */
  long calls() {
    sent.addAll(gateway.drainCalls());
    return sent.size();
  }

  /** WAITs the adapter sent so far. */
  long waits() {
    calls();
    return sent.stream().filter(c -> c.kind().equals("wait")).count();
  }

  void sleep(LeaseKeys keys, Duration d) throws InterruptedException {
    long pttl = (Long) redis.call("PTTL", keys.lease());
    long retry = pttl > 0 ? Duration.ofMillis(pttl).toNanos() : settings.contentionRetryAfter().toNanos();
    long pause = d.toNanos();
    if (Thread.currentThread().isInterrupted()) {
      pauseProblems.add("a pause on an interrupted thread (the documented outcome is at once)");
    }
    String wrong = PauseBounds.problem(pause, retry, deadline - clock.clientNanos());
    if (wrong != null) {
      pauseProblems.add(wrong);
    }
    if (sleepMode == 1) {
      throw new InterruptedException("the property's interrupt");
    }
    if (sleepMode == 2) {
      Thread.currentThread().interrupt();
      return;
    }
    clock.advance(pause);
  }
}
