package dev.leasehold.testkit.twin;

import dev.leasehold.lease.LeaseState;

/**
 * One handle's belief (RedisLeaseHandle.Belief plus its token): the spec's {@code hs, dl, tok}
 * and the ghost {@code hgrant}, with observedServerExpiry on the client's wall clock.
 *
 * <p>This class is not threadsafe.
 */
final class HandleModel {
  final int attempt;
  LeaseState hs;
  long dl;
  long tok;
  long wallExpiry;
  /** Ghost: the grant (position in the server's grant log) behind this handle. */
  int grant;

  HandleModel(int attempt) {
    this.attempt = attempt;
  }

  HandleModel copy() {
    HandleModel h = new HandleModel(attempt);
    h.hs = hs;
    h.dl = dl;
    h.tok = tok;
    h.wallExpiry = wallExpiry;
    h.grant = grant;
    return h;
  }
}
