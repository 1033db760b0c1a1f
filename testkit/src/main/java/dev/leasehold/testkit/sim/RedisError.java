package dev.leasehold.testkit.sim;

/**
 * An error reply of the simulated server, worded as Redis words it: a code, a space, the text
 * ({@code WRONGTYPE Operation against a key holding the wrong kind of value}, {@code NOSCRIPT ...}).
 * It carries no stack trace: it is a reply, not a bug.
 *
 * <p>This class is immutable.
 */
public final class RedisError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
  public static final String NOT_AN_INTEGER = "ERR value is not an integer or out of range";
  public static final String NOSCRIPT = "NOSCRIPT No matching script. Please use EVAL.";

  public RedisError(String message) {
    super(message, null, false, false);
  }

  /** The error code: the first word ({@code ERR}, {@code WRONGTYPE}, {@code NOSCRIPT}...). */
  public String code() {
    String m = getMessage();
    int space = m.indexOf(' ');
    return space < 0 ? m : m.substring(0, space);
  }

  static RedisError wrongArity(String command) {
    return new RedisError("ERR wrong number of arguments for '" + command.toLowerCase(java.util.Locale.ROOT) + "' command");
  }

  /**
   * A string as Redis reads an integer argument or value (string2ll: no sign but '-', no leading
   * zero, no space, within a long), else the not-an-integer error.
   */
  static long parseInteger(String s) {
    int start = s.startsWith("-") ? 1 : 0;
    boolean digits = s.length() > start && s.length() <= 20;
    for (int i = start; digits && i < s.length(); i++) {
      char c = s.charAt(i);
      digits = c >= '0' && c <= '9' && !(c == '0' && i == start && (start == 1 || s.length() > 1));
    }
    if (!digits) {
      throw new RedisError(NOT_AN_INTEGER);
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new RedisError(NOT_AN_INTEGER);
    }
  }

  /** The wrong-number-of-arguments error of {@code name} unless {@code ok}. */
  static void requireArity(String name, boolean ok) {
    if (!ok) {
      throw wrongArity(name);
    }
  }
}
