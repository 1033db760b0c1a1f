package dev.leasehold.testkit.trace;

import dev.leasehold.testkit.lease.TraceStep;
import java.util.List;

/**
 * Real time, for chains on a real redis-server, which the spec's grid cannot hold exactly: the
 * client's clock is frozen at each step's start while the server's runs on (so the client falls
 * behind within a step and catches up at the next, where the spec's lag only grows), the server
 * runs a script at an instant known only to lie between the step's start and the snapshot after
 * it, and Redis rounds expiries and PTTLs to its own milliseconds. So a tick is 1 ms, the client's
 * clock is the server's (lag 0), and each instant is a window the real clocks prove: an
 * {@code elapse} event lets the spec's clock move to any tick in it (LeaseTrace.Elapse), and TLC
 * keeps every choice that the later events still allow. The obs event bounds the key's expiry and
 * each ACTIVE handle's deadline by windows too; what it states exactly are the server's holder and
 * fencing counter, each handle's state and token, and every outcome. An inspect's PTTL and a
 * reply's observedServerExpiry are not compared.
 *
 * <p>This class is not threadsafe; each instance serves one trace.
 */
final class WindowTime implements TraceTime {
  static final long TICK_NANOS = 1_000_000L;
  /**
   * Ticks by which a window of an expiry or a deadline is widened beyond what the clocks prove: the
   * spec computes a replay's PTTL from its own choice of instants, which may be a tick off Redis's.
   */
  private static final long SLOP = 2;

  @Override
  public void open(List<TraceStep> steps, Emit emit) {
    // The chain's clock starts at 0, as the spec's does.
  }

  @Override
  public void stepStarts(TraceStep s, Emit emit) {
    long f = s.after().trueNow();
    elapse(s, floor(f), ceil(f), emit);
  }

  @Override
  public void sendsAt(TraceStep s, long sentAt, Emit emit) {
    // The client's clock is frozen for the whole step: it sends at the step's start.
  }

  @Override
  public void serverRuns(TraceStep s, Emit emit) {
    elapse(s, floor(s.after().trueNow()), ceil(s.realAfter()), emit);
  }

  @Override
  public void stepEnds(TraceStep s, Emit emit) {
    serverRuns(s, emit);
  }

  @Override
  public void restart(TraceStep s) {
    throw new IllegalArgumentException("step " + s.step() + ": a restart on real time is not mapped (the spec's takes one tick)");
  }

  private static void elapse(TraceStep s, long lo, long hi, Emit emit) {
    emit.add(s, "elapse", "lo", lo, "hi", hi);
  }

  @Override
  public long duration(TraceStep s, long nanos) {
    if (nanos % TICK_NANOS != 0) {
      throw new IllegalArgumentException("step " + s.step() + ": a duration of " + nanos + " ns is not whole ms");
    }
    return nanos / TICK_NANOS;
  }

  @Override
  public long observedExpiry(TraceStep s, long nanos) {
    return -1;
  }

  @Override
  public long pttl(TraceStep s, long nanos) {
    return -1;
  }

  @Override
  public List<Object> obs(TraceStep s, long[] remaining) {
    long f = s.after().trueNow();
    long[] lo = new long[remaining.length];
    long[] hi = new long[remaining.length];
    for (int a = 0; a < remaining.length; a++) {
      // The handle's deadline on the client's frozen clock: f + remaining.
      lo[a] = remaining[a] < 0 ? 0 : floor(f + remaining[a]) - SLOP;
      hi[a] = remaining[a] < 0 ? 0 : ceil(f + remaining[a]) + SLOP;
    }
    // The key is gone from some instant in [expiryLo, expiryHi]; the spec's srv.expiry is the last
    // tick it lives in, one before that, within a tick of rounding either way.
    boolean held = s.after().holder() >= 0;
    long expLo = held ? floor(s.after().expiryLo()) - 1 - SLOP : 0;
    long expHi = held ? ceil(s.after().expiryHi()) + SLOP : 0;
    return List.of("expLo", expLo, "expHi", expHi, "dlLo", SpecTrace.tuple(lo), "dlHi", SpecTrace.tuple(hi));
  }

  private static long floor(long nanos) {
    return Math.floorDiv(nanos, TICK_NANOS);
  }

  private static long ceil(long nanos) {
    return -Math.floorDiv(-nanos, TICK_NANOS);
  }
}
