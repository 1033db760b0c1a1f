package dev.leasehold.spec.tlc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads TLC's printed values far enough to show what an action changed: a function
 * {@code (k :> v @@ ...)} or a record {@code [k |-> v, ...]} splits into entries, and two states
 * diff into "path = old → new" lines.
 *
 * <p>This class is stateless.
 */
public final class TlaValues {
  private TlaValues() {}

  /** The entries of a function or record value, or null for any other value. */
  public static Map<String, String> entries(String value) {
    String v = value.trim();
    String sep;
    String arrow;
    if (v.startsWith("(") && v.endsWith(")") && v.contains(":>")) {
      sep = "@@";
      arrow = ":>";
    } else if (v.startsWith("[") && v.endsWith("]") && v.contains("|->")) {
      sep = ",";
      arrow = "|->";
    } else {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String part : splitTop(v.substring(1, v.length() - 1), sep)) {
      int i = part.indexOf(arrow);
      if (i < 0) {
        return null;
      }
      out.put(part.substring(0, i).trim(), part.substring(i + arrow.length()).trim());
    }
    return out;
  }

  /** Splits at {@code sep} outside strings and brackets ({@code << >>} counts, a lone {@code >} does not). */
  static List<String> splitTop(String s, String sep) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    boolean str = false;
    int from = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"') {
        str = !str;
      } else if (!str && (c == '(' || c == '[' || c == '{' || c == '<')) {
        if (c != '<' || (i + 1 < s.length() && s.charAt(i + 1) == '<')) {
          depth++;
        }
      } else if (!str && (c == ')' || c == ']' || c == '}' || c == '>')) {
        if (c != '>' || (i > 0 && s.charAt(i - 1) == '>')) {
          depth--;
        }
      }
      if (!str && depth == 0 && s.startsWith(sep, i)) {
        parts.add(s.substring(from, i));
        from = i + sep.length();
        i += sep.length() - 1;
      }
    }
    parts.add(s.substring(from));
    return parts;
  }

  /** The changed parts of every variable, as "path = old → new", recursing into functions and records. */
  public static List<String> changes(Map<String, String> before, Map<String, String> after) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> e : after.entrySet()) {
      String old = before.get(e.getKey());
      if (old != null && !old.equals(e.getValue())) {
        diff(e.getKey(), old, e.getValue(), out);
      }
    }
    return out;
  }

  private static void diff(String path, String old, String now, List<String> out) {
    Map<String, String> a = entries(old);
    Map<String, String> b = entries(now);
    if (a != null && b != null && a.keySet().equals(b.keySet())) {
      boolean fn = old.trim().startsWith("(");
      for (String k : b.keySet()) {
        if (!a.get(k).equals(b.get(k))) {
          diff(fn ? path + "[" + k + "]" : path + "." + k, a.get(k), b.get(k), out);
        }
      }
    } else {
      out.add(path + " = " + old + " → " + now);
    }
  }
}
