package dev.leasehold.testkit.trace;

import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.FaultyGateway;
import dev.leasehold.testkit.lease.Snapshot;
import dev.leasehold.testkit.lease.TraceStep;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One chain's recorded steps written as the events of spec/tla/LeaseTrace.tla: each call becomes
 * the Lease.tla steps it is made of, told apart by the fault its gateway call met; time becomes
 * Tick steps; and every chain step ends with an {@code obs} event holding the implementation's
 * state after it. Attempt {@code i} of the chain is attempt {@code i + 1} in the spec. A
 * concurrent step's two calls are the spec's lanes 1 (the replay) and 2 (the renew or release):
 * their sends, server steps and replies in the order its interleaving reached them; every other
 * call is on lane 1.
 *
 * <p>A batch of the watchdog's renewals (one call carrying leases of distinct attempts) is the
 * spec's Renew steps of its leases sent at one instant: the batch's first renew step writes each
 * lease's send and what the server did with it (Apply, or Refuse, or nothing yet for a request
 * delayed or never sent), in the batch's order, as the one script ran them; each lease's own step
 * then writes its reply (Deliver, LoseReply and Timeout, or Timeout) and the obs event of the
 * implementation with that lease answered and the later ones still in flight.
 *
 * <p>Only a chain that conforms to the spec can be written (WorldConfig.conformingToSpec: whole
 * ticks, wait-loop pauses ending on a tick, a restart taking one tick, calls only on each
 * attempt's newest handle, which is the spec's one handle of the attempt); anything else is an
 * IllegalArgumentException naming the step.
 *
 * <p>This class is not threadsafe; each instance writes one trace.
 */
public final class SpecTrace {
  /** One event: the chain step it belongs to and the TLA+ record. */
  public record Event(int step, String tla) {}

  private static final Pattern HELD = Pattern.compile("mine=(true|false), token=(\\d+|none|\\?)");

  private final TraceTime time;
  private final int attempts;
  private final long tokenZero;
  private final List<Event> events = new ArrayList<>();
  /** The leases of a batch sent and not yet answered, by spec attempt: their calls. */
  private final Map<Integer, FaultyGateway.Call> batchInFlight = new HashMap<>();

  private SpecTrace(TraceTime time, int attempts, long tokenZero) {
    this.time = time;
    this.attempts = attempts;
    this.tokenZero = tokenZero;
  }

  /**
   * @param tickNanos one spec tick on the chain's clocks
   * @param attempts the size of the spec's Attempt set (at least the chain's attempts)
   * @param tokenZero the chain's token that the spec's token 0 stands for, subtracted from every
   *     token and fencing counter written: 0 for FenceMode.COUNTER; for CLOCK_FLOOR the server
   *     clock's microseconds at chain time 0, so that the Java floor (server microseconds) is the
   *     spec's {@code now * TokensPerTick} with TokensPerTick one tick in microseconds
   * @param originTicks the spec's clock when the chain starts: the trace opens with that many Tick
   *     steps. CLOCK_FLOOR needs 1: the spec's floor at {@code now = 0} is 0 (the first token is 1),
   *     while a server's clock is never 0, so chain time t is spec time t + 1 tick and the floor
   *     of the chain's first tick is the spec's {@code 1 * TokensPerTick} (tokenZero one tick earlier)
   */
  public static List<Event> of(List<TraceStep> steps, long tickNanos, int attempts, long tokenZero,
      long originTicks) {
    return new SpecTrace(new GridTime(tickNanos, originTicks), attempts, tokenZero).write(steps);
  }

  /**
   * A chain run on a real redis-server with FenceMode.COUNTER, on the real clock: ticks of 1 ms,
   * each instant a window the clocks prove, clocks, expiries and deadlines not compared exactly
   * (see {@link WindowTime} for what breaks and what is still checked).
   */
  public static List<Event> ofRealTime(List<TraceStep> steps, int attempts) {
    return new SpecTrace(new WindowTime(), attempts, 0).write(steps);
  }

  private List<Event> write(List<TraceStep> steps) {
    time.open(steps, this::add);
    for (TraceStep s : steps) {
      time.stepStarts(s, this::add);
      step(s);
    }
    if (!batchInFlight.isEmpty()) {
      throw new IllegalArgumentException("the trace ends with a batch's leases of attempts " + batchInFlight.keySet()
          + " never answered");
    }
    return List.copyOf(events);
  }

  private void step(TraceStep s) {
    if (!batchInFlight.isEmpty() && !(s.action().equals("renew") && s.calls().isEmpty())) {
      throw new IllegalArgumentException("step " + s.step() + ": " + s.action() + " while a batch's leases of attempts "
          + batchInFlight.keySet() + " are in flight");
    }
    switch (s.action()) {
      case "newAttempt", "loseReply", "refuseBeforeSend", "timeout", "refuse", "flushScripts", "lag", "watch" -> {
        // Local to the client or the fault injector: no spec step (a lag shows in the next ticks; a
        // watch's renewals are the renew steps recorded inside the steps that let the watchdog run).
      }
      case "tick", "pause" -> {
        // Time passed: the Tick or Elapse steps before the obs event.
      }
      case "tryAcquire", "replay" -> call(s, "acquire");
      case "renew" -> renew(s);
      case "release" -> call(s, "release");
      case "renewBesideReplay", "releaseBesideReplay" -> LaneEvents.write(s, time, this::add);
      case "inspect" -> inspect(s);
      case "state" -> add(s, "state", "a", s.attempt() + 1, "out", str(s.outcome().variant()));
      case "effect" -> {
        if (!s.outcome().variant().equals("skipped")) {
          add(s, "effect", "a", s.attempt() + 1, "out", str(s.outcome().variant()));
        }
      }
      case "restart" -> {
        time.restart(s);
        add(s, "restart");
      }
      case "applyLate" -> {
        time.serverRuns(s, this::add);
        add(s, "late", "a", s.lateAttempt() + 1, "kind", str(s.late().kind()),
            "t", time.duration(s, s.late().ttlMillis() * 1_000_000L));
      }
      default -> throw new IllegalArgumentException("step " + s.step() + ": " + s.action() + " is not in the spec");
    }
    obs(s);
  }

  /**
   * A renew: a call of its own, or one lease of a batch. The batch's first step sends every lease
   * of the batch ({@link #request}); each lease's step has its reply ({@link #answer}), or, for a
   * lease that sent nothing, a local event.
   */
  private void renew(TraceStep s) {
    if (!s.batch().isEmpty()) {
      sendBatch(s);
    }
    int a = s.attempt() + 1;
    FaultyGateway.Call sent = batchInFlight.remove(a);
    if (sent != null) {
      answer(s, "renew", a, sent, s.outcome().variant(), false, observedExpiry(s));
    } else if (!s.batch().isEmpty()) {
      local(s, "renew");
    } else {
      call(s, "renew");
    }
  }

  /** A batch's leases, sent at one instant, and the server's step on each, in the batch's order. */
  private void sendBatch(TraceStep s) {
    List<FaultyGateway.Call> sends = s.calls();
    if (sends.size() != s.batch().size() || sends.stream().anyMatch(c -> !c.kind().equals("renew"))) {
      throw new IllegalArgumentException("step " + s.step() + ": a batch of attempts " + s.batch() + " made calls "
          + sends);
    }
    time.sendsAt(s, sends.get(0).sentAt(), this::add);
    for (int k = 0; k < sends.size(); k++) {
      int a = s.batch().get(k) + 1;
      if (batchInFlight.put(a, sends.get(k)) != null) {
        throw new IllegalArgumentException("step " + s.step() + ": two renewals of attempt " + a + " in one batch");
      }
      request(s, "renew", a, sends.get(k));
    }
  }

  /** A call that sent nothing: its outcome, which the spec's stuttering step must allow. */
  private void local(TraceStep s, String kind) {
    add(s, "local", "a", s.attempt() + 1, "kind", str(kind), "t", time.duration(s, s.ttlMs() * 1_000_000L), "out",
        str(s.outcome().variant()));
  }

  /**
   * A call: its sends, in order. A tryAcquire with a wait may send several (the wait loop): the
   * pauses between them are Tick steps up to the next send, every try but the last must end in an
   * outcome the loop retries ("retry"), and the last one gives the call's outcome, judged with the
   * loop's honest rule when an earlier try was ambiguous ({@code amb}). Time after the last try
   * (a pause that used up the wait) is Tick steps too, written before the obs event.
   */
  private void call(TraceStep s, String kind) {
    int a = s.attempt() + 1;
    // The tries; a WAIT (replicaAck) follows the try whose grant or replay it acknowledges.
    List<FaultyGateway.Call> tries = s.calls().stream().filter(c -> !c.kind().equals("wait")).toList();
    boolean acknowledged = s.calls().stream().anyMatch(c -> c.kind().equals("wait") && c.answered() >= c.ttlMillis());
    if (tries.isEmpty()) {
      local(s, kind);
      return;
    }
    if (tries.size() > 1 && !kind.equals("acquire")) {
      throw new IllegalArgumentException("step " + s.step() + " made " + tries.size() + " " + kind + " calls");
    }
    boolean ambiguous = false;
    for (int k = 0; k < tries.size(); k++) {
      FaultyGateway.Call c = tries.get(k);
      time.sendsAt(s, c.sentAt(), this::add);
      boolean last = k == tries.size() - 1;
      send(s, kind, a, c, last ? s.outcome().variant() : null, ambiguous, last ? observedExpiry(s) : -1,
          last && acknowledged);
      ambiguous |= c.fault() == Fault.LOSE_REPLY || c.fault() == Fault.TIMEOUT;
    }
  }

  /**
   * One try: its spec steps, by the fault it met; {@code out} is null for a try the loop retried;
   * {@code acknowledged}: a WAIT after it was answered by the replicas asked for (spec Replicate).
   */
  private void send(TraceStep s, String kind, int a, FaultyGateway.Call c, String out, boolean amb, long oexp,
      boolean acknowledged) {
    request(s, kind, a, c);
    if (c.fault() == null && acknowledged) {
      add(s, "replicate");
    }
    answer(s, kind, a, c, out, amb, oexp);
  }

  /**
   * A call's send and what the server did with it, by the fault it met: Apply (also for a reply
   * then lost), Refuse, or nothing yet (a request delayed on its way, or one never sent).
   */
  private void request(TraceStep s, String kind, int a, FaultyGateway.Call c) {
    if (c.fault() == Fault.REFUSE_BEFORE_SEND) {
      return;
    }
    add(s, "send", "a", a, "kind", str(kind), "t", time.duration(s, c.ttlMillis() * 1_000_000L));
    if (c.fault() == null || c.fault() == Fault.LOSE_REPLY) {
      time.serverRuns(s, this::add);
      add(s, "apply", "a", a);
    } else if (c.fault() == Fault.REFUSE) {
      add(s, "refuse", "a", a);
    } else if (c.fault() != Fault.TIMEOUT) {
      throw new IllegalArgumentException("step " + s.step() + ": fault " + c.fault() + " is not in the spec");
    }
  }

  /**
   * The client's side of a call {@link #request} sent: the reply delivered, lost and timed out, or
   * timed out; a call never sent is checked as one the spec would send. {@code out} is null for a
   * try the loop retried.
   */
  private void answer(TraceStep s, String kind, int a, FaultyGateway.Call c, String out, boolean amb, long oexp) {
    String result = str(out == null ? "retry" : out);
    if (c.fault() == null) {
      add(s, "deliver", "a", a, "out", result, "oexp", oexp, "amb", amb);
      return;
    }
    String timedOut = str(out == null ? "Indeterminate" : out);
    switch (c.fault()) {
      case REFUSE_BEFORE_SEND -> add(s, "notsent", "a", a, "kind", str(kind), "t",
          time.duration(s, c.ttlMillis() * 1_000_000L), "out", result, "amb", amb);
      case LOSE_REPLY -> {
        add(s, "lose", "a", a);
        add(s, "timeout", "a", a, "out", timedOut);
      }
      case TIMEOUT -> add(s, "timeout", "a", a, "out", timedOut);
      case REFUSE -> add(s, "deliver", "a", a, "out", result, "oexp", -1, "amb", amb);
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
    return handle < 0 ? -1 : time.observedExpiry(s, s.observedExpiry().get(handle));
  }

  /** An inspect; a token the outcome does not state ("?": a real server's, as the twin reads it) is not compared. */
  private void inspect(TraceStep s) {
    boolean faulted = s.calls().isEmpty() || s.calls().get(0).fault() != null;  // inspect sends no WAIT
    List<Object> fields = new ArrayList<>(List.of("a", s.attempt() + 1, "out", str(s.outcome().variant()),
        "faulted", faulted, "pttl", time.pttl(s, s.outcome().value())));
    Matcher m = HELD.matcher(s.outcome().detail());
    boolean held = m.find();
    fields.addAll(List.of("mine", held && m.group(1).equals("true")));
    if (!held || !m.group(2).equals("?")) {
      fields.addAll(List.of("token", !held || m.group(2).equals("none") ? -1 : token(Long.parseLong(m.group(2)))));
    }
    time.serverRuns(s, this::add);
    add(s, "inspect", fields.toArray());
  }

  private void obs(TraceStep s) {
    time.stepEnds(s, this::add);
    Snapshot after = s.after();
    String[] hs = new String[attempts];
    long[] remaining = new long[attempts];
    long[] tok = new long[attempts];
    Arrays.fill(hs, "NONE");
    // In id order, so each attempt's newest handle is the one written: the spec's hs[a]. An older
    // one was superseded (LOST) by a grant to the same attempt, as the spec's NewHandle replaces it.
    for (Snapshot.HandleObs h : after.handles()) {
      int a = h.attempt();
      if (hs[a].equals("ACTIVE") || hs[a].equals("UNKNOWN")) {
        throw new IllegalArgumentException("step " + s.step() + ": attempt " + a + " has two live handles");
      }
      hs[a] = h.state().name();
      remaining[a] = h.state() == LeaseState.ACTIVE ? h.remaining() : -1;
      tok[a] = token(h.token());
    }
    if (after.holder() < -1) {
      throw new IllegalArgumentException("step " + s.step() + ": the key holds a value of no attempt");
    }
    List<Object> fields = new ArrayList<>(List.of("holder", after.holder() + 1, "fence", token(after.fence()),
        "hs", tuple(Arrays.stream(hs).map(SpecTrace::str).toList()), "tok", tuple(tok)));
    fields.addAll(time.obs(s, remaining));
    add(s, "obs", fields.toArray());
  }

  /** A token or counter on the spec's scale; 0 (none, or no counter) stays 0. */
  private long token(long t) {
    return t > 0 ? t - tokenZero : t;
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

  static String tuple(List<String> items) {
    return "<<" + String.join(", ", items) + ">>";
  }

  static String tuple(long[] items) {
    return tuple(Arrays.stream(items).mapToObj(Long::toString).toList());
  }
}
