package dev.leasehold.testkit.blackbox;

/**
 * The properties the black-box lane checks, named as in spec/tla/Lease.tla and judged only from
 * what can be seen outside a library: its calls' results, the server's keys, and the bytes its
 * clients send.
 *
 * <p>This enum is immutable.
 */
public enum BlackBoxProperty {
  /** No client is granted a lock while another's grant, not released by it, cannot yet have expired. */
  MutualExclusion("grants while another client's grant was open"),
  /** A client that believes it holds until {@code t} is the key's holder, and the key outlives {@code t}. */
  ValidityWithinServerLease("beliefs in a hold checked against the server, after each grant and at state steps"),
  /** Each grant's fencing token is larger than every earlier grant's. */
  FencedEffects("grants whose token was compared with an earlier one"),
  /** A call that says it changed nothing (not acquired, not released) changed nothing. */
  CertaintyIsHonest("calls that said they changed nothing"),
  /** After a release returned, the client sends nothing that names the lock until it acquires again. */
  NoSendAfterEnd("releases after which the client's requests were watched"),
  /** A release that says released, or an acquire that says not acquired, leaves no key of the caller. */
  NoLeaseLeftBehind("releases of a grant and refused acquires, checked on the server");

  private final String reach;

  BlackBoxProperty(String reach) {
    this.reach = reach;
  }

  /** What a step must meet for this property to be tested at all (counted in the report). */
  public String reach() {
    return reach;
  }

  /** Whether a library with these traits promises this property. */
  public boolean promisedBy(LockLibrary.Traits traits) {
    return switch (this) {
      case FencedEffects -> traits.fenced();
      case ValidityWithinServerLease -> traits.clientValidity();
      default -> true;
    };
  }
}
