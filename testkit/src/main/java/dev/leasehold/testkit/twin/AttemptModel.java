package dev.leasehold.testkit.twin;

/**
 * One attempt's client bookkeeping, shared by all its handles: the spec's {@code sent} and the
 * ledger (AttemptLedger) that outlives its handles, {@code minPend} as {@link #ambiguousRenewCap}
 * (ms; {@code Long.MAX_VALUE} for none) and {@code relPend} as {@link #ambiguousRelease}.
 *
 * <p>This class is not threadsafe.
 */
final class AttemptModel {
  boolean sent;
  /** The attempt's live handle (the last one opened), or -1. */
  int handle = -1;
  long ambiguousRenewCap = Long.MAX_VALUE;
  boolean ambiguousRelease;

  AttemptModel copy() {
    AttemptModel a = new AttemptModel();
    a.sent = sent;
    a.handle = handle;
    a.ambiguousRenewCap = ambiguousRenewCap;
    a.ambiguousRelease = ambiguousRelease;
    return a;
  }
}
