package dev.leasehold.testkit.trace;

import dev.leasehold.testkit.lease.TraceStep;

/**
 * A concurrent step written as the events of the spec's two lanes: the replay on lane 1, the renew
 * or release on lane 2, in the order its interleaving reached the gateway's points
 * (dev.leasehold.testkit.fault.Interleaving.Ran). No fault is armed and no time passes in such a
 * step.
 *
 * <p>This class is stateless.
 */
final class LaneEvents {
  private LaneEvents() {}

  /**
   * Each lane's send where it reached its send point (what it did before, such as opening its
   * flight, is the spec's send step), its server step where it reached its reply point, and its
   * reply where its call returned; a lane that returned without reaching a point sent nothing.
   */
  static void write(TraceStep s, TraceTime time, TraceTime.Emit emit) {
    int a = s.attempt() + 1;
    if (s.calls().stream().anyMatch(c -> c.fault() != null)) {
      throw new IllegalArgumentException("step " + s.step() + ": a concurrent step met a fault");
    }
    boolean[] sent = new boolean[s.lanes().size()];
    for (String point : s.points()) {
      String[] part = point.split(":");
      int lane = Integer.parseInt(part[0]);
      TraceStep.Lane c = s.lanes().get(lane);
      if (part.length == 3 && !part[1].equals(c.kind())) {
        throw new IllegalArgumentException("step " + s.step() + ": lane " + lane + " (" + c.kind() + ") sent " + part[1]);
      }
      int l = lane + 1;
      long t = time.duration(s, c.ttlMs() * 1_000_000L);
      String kind = '"' + c.kind() + '"';
      switch (part[part.length - 1]) {
        case "send" -> {
          sent[lane] = true;
          emit.add(s, "send", "a", a, "kind", kind, "t", t, "l", l);
        }
        case "server" -> {
          // The request leaves the client; the server runs it when the lane reaches its reply point.
        }
        case "reply" -> {
          time.serverRuns(s, emit);
          emit.add(s, "apply", "a", a, "l", l);
        }
        case "end" -> {
          String out = '"' + c.outcome().variant() + '"';
          if (sent[lane]) {
            long oexp = c.observedExpiry() < 0 ? -1 : time.observedExpiry(s, c.observedExpiry());
            emit.add(s, "deliver", "a", a, "out", out, "oexp", oexp, "amb", false, "l", l);
          } else {
            emit.add(s, "local", "a", a, "kind", kind, "t", t, "out", out, "l", l);
          }
        }
        default -> throw new IllegalArgumentException("step " + s.step() + ": unknown point " + point);
      }
    }
  }
}
