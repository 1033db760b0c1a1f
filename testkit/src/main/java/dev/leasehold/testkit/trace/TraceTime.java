package dev.leasehold.testkit.trace;

import dev.leasehold.testkit.lease.TraceStep;
import java.util.List;

/**
 * Where a trace's events fall on the spec's clock, for {@link SpecTrace}: exactly, in whole ticks
 * ({@link GridTime}, chains on simulated time), or within windows the real clock allows
 * ({@link WindowTime}, chains on a real redis-server). SpecTrace writes what happened; this writes
 * when, as Tick or Elapse events and the obs event's clock fields.
 *
 * <p>Implementations are not threadsafe; each instance serves one trace.
 */
sealed interface TraceTime permits GridTime, WindowTime {
  /** Writes one event of the trace. */
  interface Emit {
    void add(TraceStep s, String op, Object... fields);
  }

  /** Before the first step. */
  void open(List<TraceStep> steps, Emit emit);

  /** Before a step's own events: the instant its client acts at. */
  void stepStarts(TraceStep s, Emit emit);

  /** Before a call sent at {@code sentAt} (chain ns): the pause of a wait loop before a later try. */
  void sendsAt(TraceStep s, long sentAt, Emit emit);

  /** Before the server runs something (a script, a delayed request, an inspect's read). */
  void serverRuns(TraceStep s, Emit emit);

  /** A restart, which in the spec moves the clock one tick (Restart). */
  void restart(TraceStep s);

  /** After a step's own events, before its obs event. */
  void stepEnds(TraceStep s, Emit emit);

  /** A duration of the chain (a TTL) in ticks. */
  long duration(TraceStep s, long nanos);

  /** A deliver's observedServerExpiry on the spec's clock, or -1 where it is not compared. */
  long observedExpiry(TraceStep s, long nanos);

  /** An inspect's PTTL in ticks, or -1 where it is not compared. */
  long pttl(TraceStep s, long nanos);

  /**
   * The obs event's clock fields (name, value pairs): the server's and client's clocks, the key's
   * expiry (when {@code holder} is not absent) and each attempt's ACTIVE handle's deadline, given
   * as its remaining validity in ns at the snapshot (-1 for a handle that is not ACTIVE).
   */
  List<Object> obs(TraceStep s, long[] remaining);
}
