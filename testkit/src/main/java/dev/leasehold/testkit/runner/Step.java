package dev.leasehold.testkit.runner;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One concrete action of a chain: its name and its parameter values, in the order of
 * {@link ActionKind#params()}. Printed and parsed as {@code name(a=1, b=2)}.
 *
 * <p>This record is immutable (the array is copied in and out).
 */
public record Step(String action, long[] args) {
  public Step {
    args = args.clone();
  }

  @Override
  public long[] args() {
    return args.clone();
  }

  public long arg(int i) {
    return args[i];
  }

  public Step withArg(int i, long value) {
    long[] copy = args.clone();
    copy[i] = value;
    return new Step(action, copy);
  }

  /** Renders with parameter names, e.g. {@code renew(handle=0, ttlMs=120)}. */
  public String render(List<Param> params) {
    StringBuilder b = new StringBuilder(action).append('(');
    for (int i = 0; i < args.length; i++) {
      if (i > 0) {
        b.append(", ");
      }
      b.append(i < params.size() ? params.get(i).name() : "p" + i).append('=').append(args[i]);
    }
    return b.append(')').toString();
  }

  /** Parses what {@link #render} printed. */
  public static Step parse(String line) {
    String s = line.trim();
    int open = s.indexOf('(');
    if (open < 0 || !s.endsWith(")")) {
      throw new IllegalArgumentException("not a step: " + line);
    }
    String name = s.substring(0, open).trim();
    String body = s.substring(open + 1, s.length() - 1).trim();
    List<Long> values = new ArrayList<>();
    if (!body.isEmpty()) {
      for (String part : body.split(",")) {
        String p = part.trim();
        int eq = p.indexOf('=');
        values.add(Long.parseLong((eq >= 0 ? p.substring(eq + 1) : p).trim()));
      }
    }
    return new Step(name, values.stream().mapToLong(Long::longValue).toArray());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Step other && action.equals(other.action) && Arrays.equals(args, other.args);
  }

  @Override
  public int hashCode() {
    return 31 * action.hashCode() + Arrays.hashCode(args);
  }

  @Override
  public String toString() {
    return action + Arrays.toString(args);
  }
}
