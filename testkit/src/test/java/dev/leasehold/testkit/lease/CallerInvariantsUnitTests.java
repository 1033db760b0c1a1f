package dev.leasehold.testkit.lease;

import static dev.leasehold.lease.LeaseState.ACTIVE;
import static dev.leasehold.lease.LeaseState.LOST;
import static dev.leasehold.lease.LeaseState.RELEASED;
import static dev.leasehold.lease.LeaseState.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.leasehold.testkit.runner.PropertyViolation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The callers' predicates that judge what the watchdog and withLease leave undone: each sees its violation and lets the nearest allowed case pass. */
class CallerInvariantsUnitTests {
  private static final long MS = 1_000_000L;

  @Test
  void lossIsReported() {
    assertViolates("LossIsReported", () -> CallerInvariants.lossIsReported("Indeterminate", UNKNOWN, false, true));
    assertViolates("LossIsReported", () -> CallerInvariants.lossIsReported("Lost", LOST, false, false));
    assertViolates("LossIsReported", () -> CallerInvariants.lossIsReported(null, LOST, false, true));
    assertViolates("LossIsReported", () -> CallerInvariants.lossIsReported("NotActive", UNKNOWN, true, true),
        "reported, but still renewing");
    assertDoesNotThrow(() -> CallerInvariants.lossIsReported("Indeterminate", UNKNOWN, true, false));
    assertDoesNotThrow(() -> CallerInvariants.lossIsReported("Renewed", ACTIVE, false, true));
    assertDoesNotThrow(() -> CallerInvariants.lossIsReported("Unavailable", UNKNOWN, false, true),
        "a renew that did not run settles nothing: retried");
    assertDoesNotThrow(() -> CallerInvariants.lossIsReported("NotActive", RELEASED, false, false),
        "a released handle ends quietly");
  }

  @Test
  void noLeaseLeftBehind() {
    assertViolates("NoLeaseLeftBehind", () -> CallerInvariants.noLeaseLeftBehind("NotAcquired(Unavailable)", false, 5 * MS, 100,
        101 * MS));
    assertViolates("NoLeaseLeftBehind", () -> CallerInvariants.noLeaseLeftBehind("NotAcquired(Indeterminate)", true, 102 * MS,
        100, 101 * MS), "beyond the TTL asked for");
    assertDoesNotThrow(() -> CallerInvariants.noLeaseLeftBehind("NotAcquired(Indeterminate)", true, 101 * MS, 100, 101 * MS));
  }

  @Test
  void noLeaseLeftBehindAfterAnIndeterminateTry() {
    // The runner's excuse is judged by Supervision.saysItMayHold: the predicate sees only mayHold.
    assertViolates("NoLeaseLeftBehind", () -> CallerInvariants.noLeaseLeftBehind("NotAcquired(Indeterminate)", false,
        5 * MS, 100, 101 * MS), "an Indeterminate try never replayed excuses nothing");
  }

  @Test
  void watchedStaysActive() {
    assertViolates("WatchedStaysActive", () -> CallerInvariants.watchedStaysActive(0, ACTIVE, 20 * MS, 5 * MS, 30 * MS,
        false, LOST));
    assertViolates("WatchedStaysActive", () -> CallerInvariants.watchedStaysActive(0, ACTIVE, 20 * MS, 5 * MS, 30 * MS,
        false, UNKNOWN), "UNKNOWN is not ACTIVE");
    assertDoesNotThrow(() -> CallerInvariants.watchedStaysActive(0, ACTIVE, 20 * MS, 5 * MS, 30 * MS, true, LOST),
        "a reported loss ends the promise");
    assertDoesNotThrow(() -> CallerInvariants.watchedStaysActive(0, ACTIVE, 5 * MS, 5 * MS, 30 * MS, false, LOST),
        "no plan can keep a lease with only the shortest interval left");
    assertDoesNotThrow(() -> CallerInvariants.watchedStaysActive(0, UNKNOWN, 20 * MS, 5 * MS, 30 * MS, false, LOST),
        "only an ACTIVE lease is promised to stay so");
    assertDoesNotThrow(() -> CallerInvariants.watchedStaysActive(0, ACTIVE, 20 * MS, 5 * MS, 30 * MS, false, ACTIVE));
  }

  @Test
  void indeterminateIsReplayed() {
    assertViolates("IndeterminateIsReplayed", () -> CallerInvariants.indeterminateIsReplayed(List.of("Indeterminate")));
    assertViolates("IndeterminateIsReplayed", () -> CallerInvariants.indeterminateIsReplayed(
        List.of("Indeterminate", "Indeterminate", "Acquired")), "once, not until it is granted");
    assertViolates("IndeterminateIsReplayed", () -> CallerInvariants.indeterminateIsReplayed(
        List.of("Contended", "Acquired")), "only an Indeterminate try is replayed");
    assertDoesNotThrow(() -> CallerInvariants.indeterminateIsReplayed(List.of("Indeterminate", "ReplayedSameOperation")));
    assertDoesNotThrow(() -> CallerInvariants.indeterminateIsReplayed(List.of("Indeterminate", "Unavailable")));
    assertDoesNotThrow(() -> CallerInvariants.indeterminateIsReplayed(List.of("Contended")));
  }

  private static void assertViolates(String property, org.junit.jupiter.api.function.Executable check) {
    assertViolates(property, check, property);
  }

  private static void assertViolates(String property, org.junit.jupiter.api.function.Executable check, String why) {
    assertEquals(property, assertThrows(PropertyViolation.class, check, why).property(), why);
  }
}
