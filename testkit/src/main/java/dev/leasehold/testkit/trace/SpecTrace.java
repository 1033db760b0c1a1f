package dev.leasehold.testkit.trace;

import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.lease.Snapshot;
import dev.leasehold.testkit.lease.TraceStep;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One chain's recorded steps written as the events of spec/tla/LeaseTrace.tla: each call becomes
 * the Lease.tla steps it is made of, told apart by the fault its gateway call met; time becomes
 * Tick steps; and every chain step ends with an {@code obs} event holding the implementation's
 * state after it. Attempt {@code i} of the chain is attempt {@code i + 1} in the spec.
 *
 * <p>Only a chain that conforms to the spec can be written (WorldConfig.conformingToSpec: whole
 * ticks, no wait loop, one handle per attempt, a restart taking one tick); anything else is an
 * IllegalArgumentException naming the step.
 *
 * <p>This class is not threadsafe; each instance writes one trace.
 */
public final class SpecTrace {
  /** One event: the chain step it belongs to and the TLA+ record. */
  public record Event(int step, String tla) {}

  private static final Pattern HELD = Pattern.compile("mine=(true|false), token=(\\d+|none)");

  private final long tickNanos;
  private final int attempts;
  private final List<Event> events = new ArrayList<>();
  private long nowTicks;
  private long specLagTicks;

  private SpecTrace(long tickNanos, int attempts) {
    this.tickNanos = tickNanos;
    this.attempts = attempts;
  }

  /**
   * @param tickNanos one spec tick on the chain's clocks
   * @param attempts the size of the spec's Attempt set (at least the chain's attempts)
   */
  public static List<Event> of(List<TraceStep> steps, long tickNanos, int attempts) {
    SpecTrace t = new SpecTrace(tickNanos, attempts);
    for (TraceStep s : steps) {
      t.step(s);
    }
    return List.copyOf(t.events);
  }

  private void step(TraceStep s) {
    switch (s.action()) {
      case "newAttempt", "loseReply", "refuseBeforeSend", "timeout", "refuse", "flushScripts", "lag" -> {
        // Local to the client or the fault injector: no spec step (a lag shows in the next ticks).
      }
      case "tick", "pause" -> ticks(s);
      case "tryAcquire", "replay" -> call(s, "acquire");
      case "renew" -> call(s, "renew");
      case "release" -> call(s, "release");
      case "inspect" -> inspect(s);
      case "state" -> add(s, "state", "a", s.attempt() + 1, "out", str(s.outcome().variant()));
      case "effect" -> {
        if (!s.outcome().variant().equals("skipped")) {
          add(s, "effect", "a", s.attempt() + 1, "out", str(s.outcome().variant()));
        }
      }
      case "restart" -> {
        nowTicks++;  // the spec's Restart takes one tick, as the conforming world's restart does
        add(s, "restart");
      }
      case "applyLate" -> add(s, "late", "a", s.lateAttempt() + 1, "kind", str(s.late().kind()),
          "t", ticks(s, s.late().ttlMillis() * 1_000_000L));
      default -> throw new IllegalArgumentException("step " + s.step() + ": " + s.action() + " is not in the spec");
    }
    obs(s);
  }

  /** The server ticks; the spec's client clock falls behind (Tick(1)) until its lag is the chain's. */
  private void ticks(TraceStep s) {
    long target = ticks(s, s.after().trueNow());
    long lag = ticks(s, s.after().lag());
    while (nowTicks < target) {
      int d = specLagTicks < lag ? 1 : 0;
      specLagTicks += d;
      nowTicks++;
      add(s, "tick", "d", d);
    }
  }

  private void call(TraceStep s, String kind) {
    int a = s.attempt() + 1;
    String out = str(s.outcome().variant());
    if (s.calls().isEmpty()) {
      add(s, "local", "a", a, "kind", str(kind), "t", ticks(s, s.ttlMs() * 1_000_000L), "out", out);
      return;
    }
    if (s.calls().size() > 1) {
      throw new IllegalArgumentException("step " + s.step() + " made " + s.calls().size() + " calls (a wait loop?)");
    }
    FaultyGateway.Call c = s.calls().get(0);
    long t = ticks(s, c.ttlMillis() * 1_000_000L);
    if (c.fault() == Fault.REFUSE_BEFORE_SEND) {
      add(s, "notsent", "a", a, "kind", str(kind), "t", t, "out", out);
      return;
    }
    add(s, "send", "a", a, "kind", str(kind), "t", t);
    if (c.fault() == null) {
      add(s, "apply", "a", a);
      add(s, "deliver", "a", a, "out", out, "oexp", observedExpiry(s));
      return;
    }
    switch (c.fault()) {
      case LOSE_REPLY -> {
        add(s, "apply", "a", a);
        add(s, "lose", "a", a);
        add(s, "timeout", "a", a, "out", out);
      }
      case TIMEOUT -> add(s, "timeout", "a", a, "out", out);
      case REFUSE -> {
        add(s, "refuse", "a", a);
        add(s, "deliver", "a", a, "out", out, "oexp", -1);
      }
      default -> throw new IllegalStateException("unreachable: " + c.fault());
    }
  }

  /** The handle's observedServerExpiry in client ticks after a reply that set it, else -1. */
  private long observedExpiry(TraceStep s) {
    String v = s.outcome().variant();
    int handle = switch (v) {
      case "Acquired", "ReplayedSameOperation" -> s.outcome().handle();
      case "Renewed" -> s.handle();
      default -> -1;
    };
    return handle < 0 ? -1 : ticks(s, s.observedExpiry().get(handle));
  }

  private void inspect(TraceStep s) {
    boolean faulted = s.calls().isEmpty() || s.calls().get(0).fault() != null;
    boolean mine = false;
    long token = -1;
    Matcher m = HELD.matcher(s.outcome().detail());
    if (m.find()) {
      mine = m.group(1).equals("true");
      token = m.group(2).equals("none") ? -1 : Long.parseLong(m.group(2));
    }
    add(s, "inspect", "a", s.attempt() + 1, "out", str(s.outcome().variant()), "faulted", faulted, "mine", mine,
        "pttl", ticks(s, s.outcome().value()), "token", token);
  }

  private void obs(TraceStep s) {
    Snapshot after = s.after();
    String[] hs = new String[attempts];
    long[] rem = new long[attempts];
    long[] tok = new long[attempts];
    Arrays.fill(hs, "NONE");
    for (Snapshot.HandleObs h : after.handles()) {
      int a = h.attempt();
      if (!hs[a].equals("NONE")) {
        throw new IllegalArgumentException("step " + s.step() + ": attempt " + a + " has two handles");
      }
      hs[a] = h.state().name();
      rem[a] = h.state() == LeaseState.ACTIVE ? ticks(s, h.remaining()) : 0;
      tok[a] = h.token();
    }
    if (after.holder() < -1) {
      throw new IllegalArgumentException("step " + s.step() + ": the key holds a value of no attempt");
    }
    List<String> states = Arrays.stream(hs).map(SpecTrace::str).toList();
    add(s, "obs", "now", ticks(s, after.trueNow()), "cnow", ticks(s, after.clientNow()),
        // The view's expiry is the first instant the key is gone, the end of its last ms; the
        // spec's srv.expiry is that last ms (the key is gone once now > expiry).
        "holder", after.holder() + 1, "exp", after.holder() < 0 ? 0 : ticks(s, after.expiryLo() - 1_000_000L),
        "fence", after.fence(), "hs", tuple(states), "rem", tuple(rem), "tok", tuple(tok));
  }

  private long ticks(TraceStep s, long nanos) {
    if (nanos % tickNanos != 0) {
      throw new IllegalArgumentException("step " + s.step() + " (" + s.action() + " " + s.outcome() + "): " + nanos
          + " ns is not a whole number of ticks: " + s);
    }
    return nanos / tickNanos;
  }

  private void add(TraceStep s, String op, Object... fields) {
    StringBuilder b = new StringBuilder("[op |-> ").append(str(op));
    for (int k = 0; k < fields.length; k += 2) {
      Object v = fields[k + 1];
      b.append(", ").append(fields[k]).append(" |-> ").append(v instanceof Boolean x ? (x ? "TRUE" : "FALSE") : v);
    }
    events.add(new Event(s.step(), b.append(']').toString()));
  }

  private static String str(String s) {
    return '"' + s + '"';
  }

  private static String tuple(List<String> items) {
    return "<<" + String.join(", ", items) + ">>";
  }

  private static String tuple(long[] items) {
    return tuple(Arrays.stream(items).mapToObj(Long::toString).toList());
  }
}
