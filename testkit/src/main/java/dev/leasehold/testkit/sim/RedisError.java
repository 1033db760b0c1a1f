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
}
