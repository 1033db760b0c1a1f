package dev.leasehold.spec.tlc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@code -tool} run of TLC printed, read from its message frames
 * ({@code @!@!@STARTMSG code:severity @!@!@ ... @!@!@ENDMSG code @!@!@}): the violated property as
 * TLC names it, the counterexample, the state count and the depth, or the first error.
 *
 * <p>This record is immutable.
 *
 * @param violated what TLC said is violated, or null
 * @param error the first error line when nothing was violated, or null
 * @param generated states generated (a simulation's only count), or -1
 * @param distinct distinct states found, or -1
 * @param depth the depth of the search (of the counterexample, if one), or -1
 * @param trace the counterexample's states, empty if none
 * @param loop how a temporal property's counterexample (a lasso) goes on after its last state:
 *     "stuttering" (for ever), "back to state N by Action" (the step after the last state returns to
 *     state N), or null for a finite one
 */
public record TlcOutput(String violated, String error, long generated, long distinct, int depth, List<State> trace,
    String loop) {
  private static final Pattern MSG =
      Pattern.compile("@!@!@STARTMSG (\\d+):(\\d+) @!@!@\\R(.*?)@!@!@ENDMSG \\1 @!@!@", Pattern.DOTALL);
  private static final Pattern STATS = Pattern.compile("([\\d,]+) states generated, (-?[\\d,]+) distinct states found");
  private static final Pattern DEPTH = Pattern.compile("depth of the complete state graph search is (\\d+)");
  private static final Pattern VIOLATED = Pattern.compile("(?:Invariant|Action property) (.+?) is violated");
  private static final Pattern STATE_HEAD = Pattern.compile("^(\\d+): <(\\w+)[^>]*>", Pattern.MULTILINE);
  private static final Pattern BACK = Pattern.compile("^(\\d+): Back to state: <(\\w+)", Pattern.MULTILINE);
  private static final Pattern VARIABLE = Pattern.compile("^/\\\\ (\\w+) = (.*?)(?=^/\\\\ |\\z)", Pattern.MULTILINE | Pattern.DOTALL);
  // TLC's message codes (tlc2.output.EC): violations, a trace state, how a lasso goes on, statistics, search depth.
  private static final int INVARIANT_VIOLATED = 2110;
  private static final int ACTION_PROPERTY_VIOLATED = 2107;
  private static final int ACTION_PROPERTY_VIOLATED_BEHAVIOR = 2112;
  private static final int TEMPORAL_PROPERTY_VIOLATED = 2116;
  private static final int BACK_TO_STATE = 2122;
  private static final int STUTTERING = 2218;
  private static final int STATE_PRINT = 2217;
  private static final int STATS_MSG = 2199;
  private static final int DEPTH_MSG = 2194;
  private static final int SIMULATION_PROGRESS_MSG = 2209;

  /** What {@link #violated} says for a temporal property, which TLC does not name. */
  public static final String TEMPORAL = "a temporal property";

  /** One state of a counterexample: the action that led to it and every variable's value. */
  public record State(int number, String action, Map<String, String> vars) {}

  public TlcOutput {
    trace = List.copyOf(trace);
  }

  public static TlcOutput parse(String output) {
    String violated = null;
    String error = null;
    long generated = -1;
    long distinct = -1;
    int depth = -1;
    String loop = null;
    List<State> trace = new ArrayList<>();
    Matcher m = MSG.matcher(output);
    while (m.find()) {
      int code = Integer.parseInt(m.group(1));
      int severity = Integer.parseInt(m.group(2));
      String body = m.group(3).trim();
      switch (code) {
        case TEMPORAL_PROPERTY_VIOLATED -> violated = TEMPORAL;
        case BACK_TO_STATE -> {
          Matcher b = BACK.matcher(body);
          loop = b.find() ? "back to state " + b.group(1) + " by " + b.group(2) : body.lines().findFirst().orElse(body);
        }
        case STUTTERING -> loop = "stuttering";
        case INVARIANT_VIOLATED, ACTION_PROPERTY_VIOLATED, ACTION_PROPERTY_VIOLATED_BEHAVIOR -> {
          Matcher v = VIOLATED.matcher(body);
          violated = v.find() ? v.group(1) : body;
        }
        case STATE_PRINT -> trace.add(state(body));
        case STATS_MSG, SIMULATION_PROGRESS_MSG -> {
          // A simulation reports only its progress, the last one at the end: states generated, -1 distinct.
          Matcher s = STATS.matcher(body);
          if (s.find()) {
            generated = Long.parseLong(s.group(1).replace(",", ""));
            distinct = Long.parseLong(s.group(2).replace(",", ""));
          }
        }
        case DEPTH_MSG -> {
          Matcher d = DEPTH.matcher(body);
          if (d.find()) {
            depth = Integer.parseInt(d.group(1));
          }
        }
        default -> {
          if (severity == 1 && error == null && violated == null) {
            error = body.lines().findFirst().orElse(body);
          }
        }
      }
    }
    if (violated != null && !trace.isEmpty()) {
      depth = trace.size();
    }
    return new TlcOutput(violated, error, generated, distinct, depth, trace, loop);
  }

  private static State state(String body) {
    Matcher h = STATE_HEAD.matcher(body);
    int number = 0;
    String action = "?";
    if (h.find()) {
      number = Integer.parseInt(h.group(1));
      action = h.group(2).equals("Initial") ? "Init" : h.group(2);
    }
    Map<String, String> vars = new LinkedHashMap<>();
    for (Matcher v = VARIABLE.matcher(body); v.find(); ) {
      vars.put(v.group(1), v.group(2).replaceAll("\\s+", " ").trim());
    }
    return new State(number, action, vars);
  }
}
