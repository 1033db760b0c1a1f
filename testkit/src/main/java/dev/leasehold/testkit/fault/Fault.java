package dev.leasehold.testkit.fault;

/**
 * A fault armed for one gateway call: the next call (of any kind) suffers it. Each is the model
 * action of the same name in camel case ({@link #action()}), named after the spec action it
 * drives (spec/README.md's table).
 *
 * <p>This enum is immutable.
 */
public enum Fault {
  /** The server applies the command and the reply is lost: AMBIGUOUS after delegating. */
  LOSE_REPLY,
  /** Spec Refuse, on the client side: the command is never written (connection known down): NOT_SENT. */
  REFUSE_BEFORE_SEND,
  /** Spec Timeout of a request not yet applied: AMBIGUOUS now, applied later (spec ApplyLate). */
  TIMEOUT,
  /** Spec Refuse: the server refuses it before running (BUSY, OOM, LOADING): OVERLOADED, nothing delegated. */
  REFUSE,
  /**
   * The server refuses it before running, for a lasting reason (NOPERM, READONLY, CLUSTERDOWN):
   * REFUSED, nothing delegated, and the outcome is {@code Unavailable}. The spec's Refuse answers
   * only {@code Overloaded}, so trace validation leaves this fault out ({@code LeaseMachine.LATER_ACTIONS}).
   */
  REFUSE_LASTING,
  /**
   * A slow call: the server applies the command, then time passes before the reply arrives (the
   * spec's Apply, Tick, Deliver). Armed with the time it takes ({@link Armed#nanos()}).
   */
  SLOW_REPLY;

  /** One fault armed for the next call: the fault and, for {@link #SLOW_REPLY}, how long the reply takes. */
  public record Armed(Fault fault, long nanos) {}

  /** The model action that arms this fault: loseReply, refuseBeforeSend, timeout, refuse, refuseLasting, slowReply. */
  public String action() {
    String[] words = name().toLowerCase(java.util.Locale.ROOT).split("_");
    StringBuilder b = new StringBuilder(words[0]);
    for (int i = 1; i < words.length; i++) {
      b.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
    }
    return b.toString();
  }
}
