package dev.leasehold.testkit.trace;

import dev.leasehold.testkit.lease.TraceStep;
import java.util.List;

/**
 * Simulated time on the spec's grid: every instant of the chain is a whole number of ticks, so
 * each event happens at one tick and the obs event states both clocks, the key's expiry and each
 * handle's remaining validity exactly. Time becomes Tick steps: the server's clock ticks and the
 * client's falls behind (Tick(1)) until its lag is the chain's.
 *
 * <p>This class is not threadsafe; each instance serves one trace.
 */
final class GridTime implements TraceTime {
  private final long tickNanos;
  private final long originTicks;
  private long nowTicks;
  private long specLagTicks;

  /** See {@link SpecTrace#of} for {@code originTicks}. */
  GridTime(long tickNanos, long originTicks) {
    this.tickNanos = tickNanos;
    this.originTicks = originTicks;
  }

  @Override
  public void open(List<TraceStep> steps, Emit emit) {
    for (long k = 0; k < originTicks && !steps.isEmpty(); k++) {
      nowTicks++;
      emit.add(steps.get(0), "tick", "d", 0);
    }
  }

  @Override
  public void stepStarts(TraceStep s, Emit emit) {
    // On the grid the step's events carry their own instants (sendsAt, stepEnds).
  }

  @Override
  public void sendsAt(TraceStep s, long sentAt, Emit emit) {
    ticksTo(s, at(s, sentAt), emit);
  }

  @Override
  public void serverRuns(TraceStep s, Emit emit) {
    // The server runs in the tick the call was sent in.
  }

  @Override
  public void stepEnds(TraceStep s, Emit emit) {
    ticksTo(s, at(s, s.after().trueNow()), emit);
  }

  @Override
  public void restart(TraceStep s) {
    nowTicks++;  // the conforming world's restart takes one tick, as the spec's does
  }

  private void ticksTo(TraceStep s, long target, Emit emit) {
    long lag = duration(s, s.after().lag());
    while (nowTicks < target) {
      int d = specLagTicks < lag ? 1 : 0;
      specLagTicks += d;
      nowTicks++;
      emit.add(s, "tick", "d", d);
    }
  }

  @Override
  public long duration(TraceStep s, long nanos) {
    if (nanos % tickNanos != 0) {
      throw new IllegalArgumentException("step " + s.step() + " (" + s.action() + " " + s.outcome() + "): " + nanos
          + " ns is not a whole number of ticks: " + s);
    }
    return nanos / tickNanos;
  }

  @Override
  public long observedExpiry(TraceStep s, long nanos) {
    return at(s, nanos);
  }

  @Override
  public long pttl(TraceStep s, long nanos) {
    return duration(s, nanos);
  }

  @Override
  public List<Object> obs(TraceStep s, long[] remaining) {
    long[] rem = new long[remaining.length];
    for (int a = 0; a < rem.length; a++) {
      rem[a] = remaining[a] < 0 ? 0 : duration(s, remaining[a]);
    }
    // The view's expiry is the first instant the key is gone, the end of its last ms; the spec's
    // srv.expiry is that last ms (the key is gone once now > expiry).
    long exp = s.after().holder() < 0 ? 0 : at(s, s.after().expiryLo() - 1_000_000L);
    return List.of("now", at(s, s.after().trueNow()), "cnow", at(s, s.after().clientNow()), "exp", exp,
        "rem", SpecTrace.tuple(rem));
  }

  /** An instant of the chain (ns since it started) on the spec's clock. */
  private long at(TraceStep s, long nanos) {
    return duration(s, nanos) + originTicks;
  }
}
