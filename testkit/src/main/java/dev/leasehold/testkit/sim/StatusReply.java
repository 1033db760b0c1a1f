package dev.leasehold.testkit.sim;

/**
 * A status reply ({@code +OK}, {@code +string}) of the simulated server, told apart from a bulk
 * string as RESP does: Lua sees it as {@code {ok = text}}.
 *
 * <p>This record is immutable.
 */
public record StatusReply(String text) {
  public static final StatusReply OK = new StatusReply("OK");
}
