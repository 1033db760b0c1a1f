package dev.leasehold.testkit.lease;

import static dev.leasehold.lease.LeaseState.ACTIVE;
import static dev.leasehold.lease.LeaseState.LOST;
import static dev.leasehold.lease.LeaseState.RELEASED;
import static dev.leasehold.lease.LeaseState.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.runner.PropertyViolation;
import dev.leasehold.testkit.twin.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shared predicates of {@link LeaseInvariants}, one test per spec property: each sees the
 * violation it is named for and lets the nearest allowed case pass. The property runs, the
 * Lincheck validation and the chaos checker all decide with these predicates, so a predicate that
 * goes blind (or too strict) fails here first, whichever oracle would have missed it.
 */
class LeaseInvariantsUnitTests {
  @Test
  void activeHoldsKey() {
    assertFalse(LeaseInvariants.activeHoldsKey(true, false), "ACTIVE while the server holds another attempt or nothing");
    assertTrue(LeaseInvariants.activeHoldsKey(true, true));
    assertTrue(LeaseInvariants.activeHoldsKey(false, false), "a handle that is not ACTIVE claims nothing");
  }

  @Test
  void validityWithinServerLease() {
    assertFalse(LeaseInvariants.validityWithinServerLease(true, true, 1_001, 1_000, 0), "valid 1 ns past the expiry");
    assertFalse(LeaseInvariants.validityWithinServerLease(true, true, 1_011, 1_000, 10), "beyond the slack");
    assertTrue(LeaseInvariants.validityWithinServerLease(true, true, 1_000, 1_000, 0), "up to the expiry itself");
    assertTrue(LeaseInvariants.validityWithinServerLease(true, true, 1_010, 1_000, 10), "within the slack");
    assertTrue(LeaseInvariants.validityWithinServerLease(true, false, 5_000, 1_000, 0), "not held: ActiveHoldsKey's case");
    assertTrue(LeaseInvariants.validityWithinServerLease(false, true, 5_000, 1_000, 0), "not ACTIVE");
  }

  @Test
  void mutualExclusion() {
    assertFalse(LeaseInvariants.mutualExclusion(2));
    assertTrue(LeaseInvariants.mutualExclusion(1));
    assertTrue(LeaseInvariants.mutualExclusion(0));
  }

  @Test
  void noInheritance() {
    assertFalse(LeaseInvariants.noInheritance(1, 0), "attempt 1 got a handle while the server holds attempt 0");
    assertFalse(LeaseInvariants.noInheritance(1, -1), "a handle while the key is absent");
    assertTrue(LeaseInvariants.noInheritance(1, 1));
  }

  @Test
  void terminalStays() {
    assertFalse(LeaseInvariants.terminalStays(LOST, ACTIVE));
    assertFalse(LeaseInvariants.terminalStays(RELEASED, LOST));
    assertTrue(LeaseInvariants.terminalStays(LOST, LOST));
    assertTrue(LeaseInvariants.terminalStays(null, ACTIVE), "never told a terminal state");
  }

  @Test
  void stateOutcomeAgreement() {
    assertFalse(LeaseInvariants.stateOutcomeAgreement("Renewed", "", ACTIVE, UNKNOWN, false));
    assertFalse(LeaseInvariants.stateOutcomeAgreement("Renewed", "", ACTIVE, LOST, false));
    assertTrue(LeaseInvariants.stateOutcomeAgreement("Renewed", "", ACTIVE, LOST, true), "the budget ran out since");
    assertFalse(LeaseInvariants.stateOutcomeAgreement("Lost", "", ACTIVE, ACTIVE, false));
    assertFalse(LeaseInvariants.stateOutcomeAgreement("Released", "", ACTIVE, UNKNOWN, false));
    assertTrue(LeaseInvariants.stateOutcomeAgreement("AlreadyAbsent", "", ACTIVE, LOST, false));
    assertFalse(LeaseInvariants.stateOutcomeAgreement("NotActive", "LOST", LOST, RELEASED, false));
    assertTrue(LeaseInvariants.stateOutcomeAgreement("NotActive", "LOST", LOST, LOST, false));
    assertFalse(LeaseInvariants.stateOutcomeAgreement("Indeterminate", "", ACTIVE, ACTIVE, false));
    assertTrue(LeaseInvariants.stateOutcomeAgreement("Indeterminate", "", ACTIVE, UNKNOWN, false));
    assertFalse(LeaseInvariants.stateOutcomeAgreement("Unavailable", "", ACTIVE, UNKNOWN, false), "nothing was applied");
    assertTrue(LeaseInvariants.stateOutcomeAgreement("Overloaded", "", null, UNKNOWN, false), "state before unknown");
    assertFalse(LeaseInvariants.stateOutcomeAgreement("ReplayedSameOperation", "", null, RELEASED, false));
    assertTrue(LeaseInvariants.stateOutcomeAgreement("Acquired", "", null, ACTIVE, false));
  }

  @Test
  void replayNeverExtends() {
    assertFalse(LeaseInvariants.replayNeverExtends(true, 100, 100, 300, 300, 0), "the replay moved the expiry");
    assertFalse(LeaseInvariants.replayNeverExtends(false, 100, 100, 100, 100, 0), "the key is no longer held");
    assertTrue(LeaseInvariants.replayNeverExtends(true, 100, 100, 100, 100, 0));
    assertTrue(LeaseInvariants.replayNeverExtends(true, 90, 110, 105, 120, 0), "overlapping read windows");
    assertTrue(LeaseInvariants.replayNeverExtends(true, 100, 100, 105, 105, 5), "within the slack");
  }

  @Test
  void fencedEffects() {
    assertFalse(LeaseInvariants.fencedEffects(1, 3), "grant 1's write accepted after grant 3's");
    assertTrue(LeaseInvariants.fencedEffects(3, 3));
  }

  /**
   * On a real server the snapshot after a step is read up to the slack after the step's frozen
   * instant: a key whose expiry falls in that window may be gone without the call's doing (a
   * real-server chain of trace validation met it), but a key that could not have expired yet may not.
   */
  @Test
  void certaintyIsHonest_aKeyExpiringWhileTheSnapshotAfterIsRead_wasNotRemovedByTheCall() {
    long ms = 1_000_000L;
    long slack = 4 * ms;
    Snapshot before = server(90 * ms, 0, 100 * ms, 101 * ms, slack);
    Snapshot gone = server(98 * ms, -1, 0, 0, slack);
    StepEvent unavailable = new StepEvent("tryAcquire", 1, -1, Outcome.of("Unavailable"), before, null);
    assertDoesNotThrow(() -> LeaseInvariants.certaintyIsHonest(unavailable, gone));
    assertDoesNotThrow(() -> LeaseInvariants.certaintyIsHonest(unavailable, server(98 * ms, 0, 100 * ms, 101 * ms, slack)));
    Snapshot later = server(90 * ms, 0, 200 * ms, 201 * ms, slack);
    StepEvent removed = new StepEvent("tryAcquire", 1, -1, Outcome.of("Unavailable"), later, null);
    assertThrows(PropertyViolation.class, () -> LeaseInvariants.certaintyIsHonest(removed, gone),
        "a key that lives 100 ms more was gone after a call that says it was not applied");
  }

  private static Snapshot server(long now, int holder, long expiryLo, long expiryHi, long slack) {
    return new Snapshot(now, now, 0, holder, expiryLo, expiryHi, 1, List.of(), List.of(0, 0), slack);
  }

  @Test
  void certaintyIsHonest() {
    assertFalse(LeaseInvariants.certaintyIsHonest("Unavailable", true));
    assertFalse(LeaseInvariants.certaintyIsHonest("Overloaded", true));
    assertFalse(LeaseInvariants.certaintyIsHonest("IllegalArgumentException", true));
    assertTrue(LeaseInvariants.certaintyIsHonest("Unavailable", false));
    assertTrue(LeaseInvariants.certaintyIsHonest("Indeterminate", true), "an ambiguous outcome promises nothing");
  }

  @Test
  void lossIsReported() {
    assertFalse(LeaseInvariants.lossIsReported("Indeterminate", ACTIVE), "an unanswered renew left the handle ACTIVE");
    assertFalse(LeaseInvariants.lossIsReported("Lost", ACTIVE));
    assertTrue(LeaseInvariants.lossIsReported("Indeterminate", UNKNOWN));
    assertTrue(LeaseInvariants.lossIsReported("Lost", LOST));
    assertTrue(LeaseInvariants.lossIsReported("Renewed", ACTIVE));
    assertTrue(LeaseInvariants.lossIsReported("Overloaded", ACTIVE), "a refusal changed nothing: no loss");
  }
}
