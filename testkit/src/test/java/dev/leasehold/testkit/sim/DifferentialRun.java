package dev.leasehold.testkit.sim;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.LeaseScript;
import dev.leasehold.redis.ScriptCalls;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One seeded sequence run against a {@link SimulatedRedis} and a real server, step by step, every
 * reply compared. The simulated server's virtual clock follows real time: before each step it is
 * set to the wall clock's microsecond since the sequence started, on a whole millisecond of the
 * wall clock, so both servers count milliseconds alike and the real one runs each command at most
 * the step's round trip later. Hence:
 *
 * <ul>
 *   <li>PTTLs may differ by the real time a step took (and by the one that set the expiry), plus
 *       the millisecond rounding: {@code 2 + 2 x} the slowest step so far.
 *   <li>No step runs while a key may be expiring: before a step whose round trip could straddle
 *       an expiry (the simulated one, or the real one up to the slowest step later), the run
 *       sleeps past it. A step that straddled one anyway (a pause of the machine) cuts its
 *       sequence short, counted as inconclusive, never as a match or a mismatch.
 *   <li>Fencing tokens in clock mode come from each server's own TIME: the simulated server's is
 *       checked exactly ({@code max(counter + 1, its micros)}), the real one's as
 *       {@code >= counter + 1} and {@code >= the wall clock's micros when the step began} (and no
 *       later than it ended). From then on the two counters differ by a known offset, which every
 *       later token and counter read is compared with; DEL or SET of the counter, or no counter
 *       left on either server (it expired), resets it to 0.
 *   <li>Errors are compared whole on Redis 7 (the same script text: the same SHA1 and lines). On
 *       6.2, by their Redis text without 7's {@code script: <sha>, on @user_script:N.} and 6.2's
 *       {@code Error running script (call to f_<sha>): @user_script:N:} wrappers, and the line N
 *       (6.2 runs the scripts without their first line: one less). Where
 *       6.2 words an error otherwise than 7.0, whose wording the simulated server has, the 6.2 text
 *       is mapped to 7.0's ({@link #REDIS6_WORDING}).
 * </ul>
 *
 * <p>This class is not threadsafe.
 */
final class DifferentialRun {
  /** An error reply. */
  record Err(String message) {}

  /** The real server: one command, its reply with RESP types or an {@link Err}. */
  interface Real {
    Object send(List<String> argv);
  }

  /** Counts over every run of one server. */
  static final class Totals {
    int sequences;
    int inconclusive;
    int steps;
    int commands;
    int scriptCalls;
    int noScript;
    int errors;
    int clockTokens;
    int sleeps;

    String summary() {
      return sequences + " sequences (" + inconclusive + " cut short by timing), " + steps + " steps, " + commands
          + " commands compared (" + scriptCalls + " script calls, " + noScript + " NOSCRIPT, " + errors
          + " error replies, " + clockTokens + " clock-floor tokens), " + sleeps + " sleeps past an expiry";
    }
  }

  private static final LeaseKeys KEYS = new LeaseKeys("diff:lease:v1:{p:d}");
  private static final String[] OWNERS = {"own-a", "own-b"};
  private static final String[] OPS = {"op-1", "op-2"};
  private static final long[] SCRIPT_TTLS = {15, 40, 120, 400, 3_000};
  private static final long[] PAUSES = {2, 10, 30, 80, 200};
  private static final long GUARD_MS = 5;
  private static final Pattern REDIS7_WRAP = Pattern.compile(" script: [0-9a-f]{40}, on @user_script:(\\d+)\\.$");
  private static final Pattern REDIS6_WRAP =
      Pattern.compile("^ERR Error running script \\(call to f_[0-9a-f]{40}\\): @user_script:(\\d+): ");

  /** Error texts Redis 6.2 words otherwise than 7.0, whose wording the simulated server has. */
  private static final Map<String, String> REDIS6_WORDING =
      Map.of("ERR invalid expire time in set", "ERR invalid expire time in 'set' command");

  private final Real real;
  private final int major;
  private final Random random;
  private final Totals totals;
  private final List<String> mismatches;
  private final VirtualClock clock = new VirtualClock();
  private final SimulatedRedis sim = new SimulatedRedis(clock);
  private final long startMicros;
  private final List<ScriptCalls.Call> history = new ArrayList<>();
  private final List<String> log = new ArrayList<>();
  /** The simulated counter minus the real one, when both are numbers. */
  private long offset;
  private long simFence;
  private long realFence;
  /** Expiries (ms since the start, simulated) of the two keys as last read; -1 for none. */
  private final long[] expiries = {-1, -1};
  private long slowestMicros;
  private boolean cut;
  /** An ACQUIRE that failed this step: both counters before it. */
  private long[] failedAcquire;

  DifferentialRun(Real real, int major, long seed, Totals totals, List<String> mismatches) {
    this.real = real;
    this.major = major;
    this.random = new Random(seed);
    this.totals = totals;
    this.mismatches = mismatches;
    this.startMicros = wallMicros() / 1_000 * 1_000;
    log.add("seed " + seed);
  }

  private static long wallMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  void run(int steps) {
    totals.sequences++;
    for (int i = 0; i < steps && !cut && mismatches.isEmpty(); i++) {
      step();
      totals.steps++;
    }
  }

  private void step() {
    int pick = random.nextInt(100);
    if (pick < 12) {
      long ms = PAUSES[random.nextInt(PAUSES.length)];
      log.add("sleep " + ms);
      sleepMs(ms);
      return;
    }
    awayFromExpiries();
    long t0 = wallMicros();
    clock.advance(Math.max(0, (t0 - startMicros) * 1_000L - clock.trueNanos()));
    counterExpiredOnBoth();
    long simFenceBefore = simFence;
    long realFenceBefore = realFence;
    String ownership = OWNERS[random.nextInt(2)] + ":" + OPS[random.nextInt(2)];
    Runnable check;
    if (pick < 60 || (pick < 72 && history.isEmpty())) {
      ScriptCalls.Call call = newCall(pick, ownership);
      history.add(call);
      check = script(call, t0, simFenceBefore, realFenceBefore);
    } else if (pick < 72) {
      ScriptCalls.Call call = history.get(random.nextInt(history.size()));
      log.add("replay:");
      check = script(call, t0, simFenceBefore, realFenceBefore);
    } else {
      List<String> argv = outside(pick, ownership);
      log.add(String.join(" ", argv));
      Object s = simSend(argv);
      Object r = real.send(argv);
      boolean fence = argv.get(1).equals(KEYS.fence()) && !argv.get(0).equals("PTTL");
      check = () -> {
        if (argv.get(0).equals("PTTL")) {
          totals.commands++;
          pttl("PTTL", s, r, s, r);
        } else {
          same(argv.get(0), s, r);
        }
        if (fence && !(s instanceof Err)) {
          offset = 0; // the counter was deleted or set to the same text on both
        }
      };
    }
    List<String> reads = new ArrayList<>();
    List<Object> simReads = new ArrayList<>();
    List<Object> realReads = new ArrayList<>();
    for (String key : List.of(KEYS.lease(), KEYS.fence())) {
      for (String command : List.of("TYPE", "GET", "PTTL")) {
        List<String> argv = List.of(command, key);
        reads.add(command + " " + key);
        simReads.add(simSend(argv));
        realReads.add(real.send(argv));
      }
    }
    long t1 = wallMicros();
    slowestMicros = Math.max(slowestMicros, t1 - t0);
    if (straddlesAnExpiry(t0, t1)) {
      totals.inconclusive++;
      cut = true;
      return;
    }
    check.run();
    if (failedAcquire != null) {
      failedAcquireMovedNoCounter(counter(simReads.get(4)), counter(realReads.get(4)));
    }
    for (int i = 0; i < reads.size(); i++) {
      compareRead(reads.get(i), simReads.get(i), realReads.get(i));
    }
    if (simReads.get(4) == null && realReads.get(4) == null) {
      offset = 0; // no counter on either (it expired, or was never written): the next token counts from 0 on both
    }
    simFence = counter(simReads.get(4));
    realFence = counter(realReads.get(4));
    long nowMs = clock.trueNanos() / 1_000_000L;
    for (int k = 0; k < 2; k++) {
      Object pttl = simReads.get(3 * k + 2);
      expiries[k] = pttl instanceof Long p && p >= 0 ? nowMs + p : -1;
    }
  }

  /**
   * A counter whose expiry, as last read, has passed is gone on both servers (no step runs near an
   * expiry, so neither still has it): the next token counts from 0 on both, whatever offset the
   * two counters had, and the counters before this step are 0, not the values last read.
   */
  private void counterExpiredOnBoth() {
    long fenceExpiry = expiries[1];
    if (fenceExpiry >= 0 && clock.trueNanos() / 1_000_000L > fenceExpiry) {
      offset = 0;
      simFence = 0;
      realFence = 0;
      expiries[1] = -1;
    }
  }

  private ScriptCalls.Call newCall(int pick, String ownership) {
    long ttl = random.nextInt(30) == 0 ? 0 : SCRIPT_TTLS[random.nextInt(SCRIPT_TTLS.length)];
    String owner = ownership.substring(0, ownership.indexOf(':'));
    if (pick < 25) {
      FenceMode mode = random.nextBoolean() ? FenceMode.COUNTER : FenceMode.CLOCK_FLOOR;
      return ScriptCalls.acquire(KEYS, ownership, owner, ttl, mode, counterRetention());
    }
    if (pick < 40) {
      return ScriptCalls.renew(KEYS, ownership, ttl, counterRetention());
    }
    return pick < 50 ? ScriptCalls.release(KEYS, ownership) : ScriptCalls.inspect(KEYS, ownership);
  }

  /** The counter's retention a call sends: 0 (no TTL, as COUNTER sends) or short enough to expire within a run. */
  private long counterRetention() {
    return random.nextBoolean() ? 0 : SCRIPT_TTLS[random.nextInt(SCRIPT_TTLS.length)];
  }

  private List<String> outside(int pick, String ownership) {
    String lease = KEYS.lease();
    String ttl = Long.toString(random.nextInt(20) == 0 ? 0 : SCRIPT_TTLS[random.nextInt(SCRIPT_TTLS.length)]);
    return switch (pick) {
      case 72, 73, 74 -> List.of("DEL", lease);
      case 75, 76 -> List.of("SET", lease, ownership);
      case 77, 78, 79 -> List.of("SET", lease, random.nextBoolean() ? ownership : "someone-else", "PX", ttl.equals("0") ? "50" : ttl);
      case 80, 81, 82 -> List.of("PERSIST", lease);
      case 83, 84 -> List.of("HSET", lease, "field", "value");
      case 85, 86, 87, 88 -> List.of("PEXPIRE", lease, ttl);
      case 89, 90, 91 -> List.of("SCRIPT", "FLUSH");
      case 92, 93 -> List.of("DEL", KEYS.fence());
      case 94 -> List.of("SET", KEYS.fence(), Integer.toString(random.nextInt(10)));
      case 95 -> List.of("SET", KEYS.fence(), "not-a-number");
      case 96 -> List.of("HSET", KEYS.fence(), "field", "value");
      // No replicas on either server: 0 at once, and after at most 1 ms of blocking on the real one.
      case 97 -> List.of("WAIT", "0", "0");
      case 98 -> List.of("WAIT", "1", "1");
      default -> List.of("PTTL", lease);
    };
  }

  /** Runs {@code call} on both servers as the gateways do (NOSCRIPT: EVAL of the text, once); the check of its replies. */
  private Runnable script(ScriptCalls.Call call, long t0, long simFenceBefore, long realFenceBefore) {
    log.add(call.script() + " " + call.keys() + " " + call.args());
    LeaseScript script = call.script();
    boolean readOnly = script.readOnly();
    List<String> simArgv = eval(script.readOnly() ? "EVALSHA_RO" : "EVALSHA", script.sha1(true), call);
    List<String> realArgv = eval(readOnly && major >= 7 ? "EVALSHA_RO" : "EVALSHA", script.sha1(major >= 7), call);
    Object s = simSend(simArgv);
    Object r = real.send(realArgv);
    List<Runnable> checks = new ArrayList<>();
    if (s instanceof Err se && se.message().startsWith("NOSCRIPT") || r instanceof Err re && re.message().startsWith("NOSCRIPT")) {
      Object noScriptSim = s;
      Object noScriptReal = r;
      totals.noScript++;
      checks.add(() -> same("EVALSHA", noScriptSim, noScriptReal));
      s = simSend(eval(readOnly ? "EVAL_RO" : "EVAL", script.source(true), call));
      r = real.send(eval(readOnly && major >= 7 ? "EVAL_RO" : "EVAL", script.source(major >= 7), call));
    }
    Object simReply = s;
    Object realReply = r;
    totals.scriptCalls++;
    checks.add(() -> scriptReply(call, simReply, realReply, t0, simFenceBefore, realFenceBefore));
    return () -> checks.forEach(Runnable::run);
  }

  /** {@code command} (EVAL, EVALSHA or their _RO forms) of {@code script} (its text or its SHA1) with the call's keys and arguments. */
  private static List<String> eval(String command, String script, ScriptCalls.Call call) {
    List<String> argv = new ArrayList<>(List.of(command, script, Integer.toString(call.keys().size())));
    argv.addAll(call.keys());
    argv.addAll(call.args());
    return argv;
  }

  private void scriptReply(ScriptCalls.Call call, Object s, Object r, long t0, long simFenceBefore, long realFenceBefore) {
    String what = call.script().name();
    boolean clockMode = call.script() == LeaseScript.ACQUIRE && call.args().get(3).equals(FenceMode.CLOCK_FLOOR.wire());
    if (!(s instanceof List<?> sl) || !(r instanceof List<?> rl)) {
      same(what, s, r);
      failedAcquire = call.script() == LeaseScript.ACQUIRE && s instanceof Err
          ? new long[] {simFenceBefore, realFenceBefore} : null;
      return;
    }
    totals.commands++;
    if (call.script() == LeaseScript.RENEW) {
      same(what, s, r);
      return;
    }
    if (sl.size() != rl.size() || !Objects.equals(sl.get(0), rl.get(0))) {
      mismatch(what, s, r);
      return;
    }
    long status = (Long) sl.get(0);
    if (call.script() == LeaseScript.INSPECT) {
      if (status == 1) {
        field(what + " thisAttempt", sl.get(1).equals(rl.get(1)), s, r);
        pttl(what + " pttl", sl.get(2), rl.get(2), s, r);
        token(what + " token", sl.get(3), rl.get(3), s, r);
      }
      return;
    }
    if (status == 0) {
      field(what + " token", sl.get(1).equals(rl.get(1)), s, r);
      pttl(what + " pttl", sl.get(2), rl.get(2), s, r);
      field(what + " sameOwner", sl.get(3).equals(rl.get(3)), s, r);
      return;
    }
    // A grant's reply is {1, token}; a replay's {2, token, pttl}.
    field(what + " length", sl.size() == rl.size(), s, r);
    if (status == 2) {
      pttl(what + " pttl", sl.get(2), rl.get(2), s, r);
    }
    if (status == 2 || !clockMode) {
      token(what + " token", sl.get(1), rl.get(1), s, r);
      return;
    }
    long simToken = (Long) sl.get(1);
    long realToken = (Long) rl.get(1);
    totals.clockTokens++;
    field(what + " simulated clock token", simToken == Math.max(simFenceBefore + 1, sim.serverMicros()), s, r);
    field(what + " real clock token", realToken >= realFenceBefore + 1 && realToken >= t0 - 1_000
        && realToken <= Math.max(realFenceBefore + 1, wallMicros() + 1_000), s, r);
    offset = simToken - realToken;
  }

  /**
   * An ACQUIRE that failed (SET PX 0, a counter that is not an integer) changed neither counter:
   * the script reads the counter first and writes it last, so it fails before it writes anything.
   */
  private void failedAcquireMovedNoCounter(long simAfter, long realAfter) {
    long[] before = failedAcquire;
    failedAcquire = null;
    field("counter after a failed ACQUIRE (simulated)", simAfter == before[0], simAfter, realAfter);
    field("counter after a failed ACQUIRE (real)", realAfter == before[1], simAfter, realAfter);
  }

  private void compareRead(String what, Object s, Object r) {
    if (what.startsWith("PTTL")) {
      totals.commands++;
      pttl(what, s, r, s, r);
    } else if (what.startsWith("GET " + KEYS.fence()) && isNumber(s) && isNumber(r)) {
      totals.commands++;
      token(what, Long.parseLong((String) s), Long.parseLong((String) r), s, r);
    } else {
      same(what, s, r);
    }
  }

  private static boolean isNumber(Object o) {
    return o instanceof String s && s.matches("-?[0-9]{1,19}");
  }

  private static long counter(Object get) {
    return isNumber(get) ? Long.parseLong((String) get) : 0;
  }

  private void same(String what, Object s, Object r) {
    totals.commands++;
    if (s instanceof Err se && r instanceof Err re) {
      totals.errors++;
      if (major >= 7) {
        // The same script text, so the same SHA1 and lines: the whole message must match.
        if (!se.message().equals(re.message())) {
          mismatch(what, s, r);
        }
        return;
      }
      String[] a = core(se.message(), 0);
      String[] b = core(re.message(), major >= 7 ? 0 : 1);
      b[0] = REDIS6_WORDING.getOrDefault(b[0], b[0]);
      if (!a[0].equals(b[0]) || (a[1] != null && b[1] != null && !a[1].equals(b[1]))) {
        mismatch(what, s, r);
      }
      return;
    }
    if (!Objects.equals(s, r)) {
      mismatch(what, s, r);
    }
  }

  /** An error's Redis text without the script wrapper, and the script line it names (6.2: {@code shift} less). */
  private static String[] core(String message, int shift) {
    Matcher seven = REDIS7_WRAP.matcher(message);
    if (seven.find()) {
      return new String[] {message.substring(0, seven.start()), seven.group(1)};
    }
    Matcher six = REDIS6_WRAP.matcher(message);
    if (six.find()) {
      return new String[] {message.substring(six.end()).trim(), Integer.toString(Integer.parseInt(six.group(1)) + shift)};
    }
    return new String[] {message, null};
  }

  private void expect(String what, Object expected, Object actual) {
    totals.commands++;
    if (!Objects.equals(expected, actual)) {
      mismatch(what, expected, actual);
    }
  }

  private void field(String what, boolean ok, Object s, Object r) {
    if (!ok) {
      mismatch(what, s, r);
    }
  }

  private void pttl(String what, Object s, Object r, Object sAll, Object rAll) {
    if (s instanceof Long a && r instanceof Long b && a >= 0 && b >= 0) {
      long tolerance = 2 + 2 * slowestMs();
      field(what + " (within " + tolerance + " ms)", Math.abs(a - b) <= tolerance, sAll, rAll);
    } else {
      field(what, Objects.equals(s, r), sAll, rAll);
    }
  }

  private void token(String what, Object s, Object r, Object sAll, Object rAll) {
    field(what + " (offset " + offset + ")", s instanceof Long a && r instanceof Long b && a == b + offset, sAll, rAll);
  }

  private void mismatch(String what, Object s, Object r) {
    mismatches.add(what + ": simulated " + s + ", real " + r + "\n  after " + String.join("\n        ", log));
  }

  private Object simSend(List<String> argv) {
    try {
      return sim.call(argv.toArray(String[]::new));
    } catch (RedisError e) {
      return new Err(e.getMessage());
    }
  }

  /** Sleeps while a step's round trip could straddle a key's expiry on either server. */
  private void awayFromExpiries() {
    long delta = 1 + slowestMs();
    for (boolean slept = true; slept; ) {
      slept = false;
      for (long expiry : expiries) {
        double now = (wallMicros() - startMicros) / 1_000.0;
        if (expiry >= 0 && now >= expiry - 1 - GUARD_MS - delta && now <= expiry + delta + 1) {
          totals.sleeps++;
          sleepMs((long) Math.ceil(expiry + delta + 2 - now));
          slept = true;
        }
      }
    }
  }

  private boolean straddlesAnExpiry(long t0, long t1) {
    long delta = 1 + slowestMs();
    double from = (t0 - startMicros) / 1_000.0;
    double to = (t1 - startMicros) / 1_000.0;
    for (long expiry : expiries) {
      if (expiry >= 0 && to >= expiry - 1 && from <= expiry + delta + 1) {
        return true;
      }
    }
    return false;
  }

  private long slowestMs() {
    return (slowestMicros + 999) / 1_000;
  }

  private static void sleepMs(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
