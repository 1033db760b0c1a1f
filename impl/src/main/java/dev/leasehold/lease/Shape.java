package dev.leasehold.lease;

import java.util.regex.Pattern;

/**
 * A rule for an identifier: a literal prefix, one character of a first set, then {@code min} to
 * {@code max} characters of a rest set (ASCII sets written as in a regex class, e.g.
 * {@code a-z0-9-}). {@link #fits} checks it with a loop over the characters: a regex matcher on
 * every request was the largest part of the adapter's own CPU per acquire (bench/README.md). The
 * same rule as a {@link Pattern}, built from the same parts, serves {@link Checks#describe} on the
 * failure path.
 *
 * <p>This class is immutable and threadsafe.
 */
final class Shape {
  private final String prefix;
  private final boolean[] first;
  private final boolean[] rest;
  private final int min;
  private final int max;
  private final Pattern pattern;

  private Shape(String prefix, String first, String rest, int min, int max) {
    this.prefix = prefix;
    this.first = set(first);
    this.rest = set(rest);
    this.min = min;
    this.max = max;
    this.pattern = Pattern.compile(Pattern.quote(prefix) + "[" + first + "][" + rest + "]{" + min + "," + max + "}");
  }

  /** {@code prefix}, one character of {@code first}, then {@code min..max} characters of {@code rest}. */
  static Shape of(String prefix, String first, String rest, int min, int max) {
    return new Shape(prefix, first, rest, min, max);
  }

  /** Whether {@code value} (not null) follows the rule: the same answer as {@link #pattern()}'s full match. */
  boolean fits(String value) {
    int n = value.length();
    int p = prefix.length();
    if (n < p + 1 + min || n > p + 1 + max || !value.startsWith(prefix) || !in(first, value.charAt(p))) {
      return false;
    }
    for (int i = p + 1; i < n; i++) {
      if (!in(rest, value.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** The rule as a regex, for describing what breaks it. */
  Pattern pattern() {
    return pattern;
  }

  private static boolean in(boolean[] set, char c) {
    return c < set.length && set[c];
  }

  /** An ASCII set written as a regex class body: single characters and ranges {@code a-z}; a last {@code -} is itself. */
  private static boolean[] set(String spec) {
    boolean[] set = new boolean[128];
    for (int i = 0; i < spec.length(); i++) {
      char from = spec.charAt(i);
      char to = from;
      if (i + 2 < spec.length() && spec.charAt(i + 1) == '-') {
        to = spec.charAt(i + 2);
        i += 2;
      }
      if (from > to || to >= 128 || from == '\\' || from == '[' || from == ']' || from == '^') {
        throw new IllegalArgumentException("not an ASCII class body: " + spec);
      }
      for (char c = from; c <= to; c++) {
        set[c] = true;
      }
    }
    return set;
  }
}
