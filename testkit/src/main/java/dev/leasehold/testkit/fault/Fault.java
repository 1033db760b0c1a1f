package dev.leasehold.testkit.fault;

/**
 * A fault armed for one gateway call: the next call (of any kind) suffers it.
 *
 * <p>This enum is immutable.
 */
public enum Fault {
  /** The server applies the command and the reply is lost: AMBIGUOUS after delegating. */
  LOSE_REPLY,
  /** The command is never written (connection known down): NOT_SENT, nothing delegated. */
  NOT_SENT,
  /** The request is still in flight when the client times out: AMBIGUOUS now, applied later. */
  DELAY,
  /** The server refuses it before running (BUSY, OOM, LOADING): OVERLOADED, nothing delegated. */
  OVERLOADED
}
