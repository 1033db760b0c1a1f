package dev.leasehold.testkit.lease;

import static dev.leasehold.lease.LeaseState.ACTIVE;
import static dev.leasehold.lease.LeaseState.LOST;
import static dev.leasehold.lease.LeaseState.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.runner.PropertyViolation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The port's bounded liveness predicates: each sees its violation and lets the nearest allowed case pass. */
class LivenessInvariantsUnitTests {
  private static final long MS = 1_000_000L;
  private static final long RETRY = 52 * MS;

  @Test
  void aGrantIsDueWhenTheLeaseIsFreeAndTheFirstTryMeetsNoFailingFault() {
    assertTrue(LivenessInvariants.grantDue(0, 0, RETRY, false, false));
    assertTrue(LivenessInvariants.grantDue(0, 0, RETRY, false, true), "a slow reply still answers");
    assertFalse(LivenessInvariants.grantDue(0, 0, RETRY, true, true), "a refused or lost first try promises nothing");
  }

  @Test
  void aWaitingAttemptIsDueOnlyWhenTheLeaseFallsFreeARetryPauseBeforeItsWaitEnds() {
    assertTrue(LivenessInvariants.grantDue(40 * MS, 40 * MS + RETRY, RETRY, false, false));
    assertFalse(LivenessInvariants.grantDue(40 * MS, 40 * MS + RETRY - 1, RETRY, false, false));
    assertFalse(LivenessInvariants.grantDue(40 * MS, 0, RETRY, false, false), "no wait, no promise for a held lease");
    assertFalse(LivenessInvariants.grantDue(40 * MS, 200 * MS, RETRY, false, true), "any fault armed while it waits");
    assertFalse(LivenessInvariants.grantDue(Long.MAX_VALUE, 200 * MS, RETRY, false, false), "never free");
  }

  @Test
  void grantedWhenFree() {
    assertViolates("GrantedWhenFree", () -> LivenessInvariants.grantedWhenFree("Contended", true, "free"));
    assertViolates("GrantedWhenFree", () -> LivenessInvariants.grantedWhenFree("Unavailable", true, "free"));
    assertDoesNotThrow(() -> LivenessInvariants.grantedWhenFree("Acquired", true, "free"));
    assertDoesNotThrow(() -> LivenessInvariants.grantedWhenFree("ReplayedSameOperation", true, "free"));
    assertDoesNotThrow(() -> LivenessInvariants.grantedWhenFree("IllegalArgumentException", true, "free"),
        "a request rejected before any I/O");
    assertDoesNotThrow(() -> LivenessInvariants.grantedWhenFree("Contended", false, "held"));
  }

  @Test
  void unknownSettles() {
    assertViolates("SettlesWhenFaultFree", () -> LivenessInvariants.unknownSettles(0, UNKNOWN, 301 * MS, 300 * MS));
    assertDoesNotThrow(() -> LivenessInvariants.unknownSettles(0, UNKNOWN, 300 * MS, 300 * MS));
    assertDoesNotThrow(() -> LivenessInvariants.unknownSettles(0, LOST, 900 * MS, 300 * MS));
    assertDoesNotThrow(() -> LivenessInvariants.unknownSettles(0, ACTIVE, 900 * MS, 300 * MS));
  }

  @Test
  void unknownStretchStartsAgainAfterAFault() {
    UnknownStretch stretch = new UnknownStretch(0);
    stretch.asked(100);
    stretch.stepEnded(0, false, List.of(UNKNOWN));
    assertViolates("SettlesWhenFaultFree", () -> stretch.stepEnded(101 * MS, false, List.of(UNKNOWN)));
    UnknownStretch faulted = new UnknownStretch(0);
    faulted.asked(100);
    faulted.stepEnded(0, false, List.of(UNKNOWN));
    faulted.stepEnded(50 * MS, true, List.of(UNKNOWN));
    assertDoesNotThrow(() -> faulted.stepEnded(101 * MS, false, List.of(UNKNOWN)),
        "UNKNOWN for 101 ms, but only 51 of them fault-free");
  }

  @Test
  void noCallRunning() {
    assertViolates("SettlesWhenFaultFree", () -> LivenessInvariants.noCallRunning(1, 3));
    assertDoesNotThrow(() -> LivenessInvariants.noCallRunning(0, 3));
  }

  private static void assertViolates(String property, org.junit.jupiter.api.function.Executable check) {
    assertEquals(property, assertThrows(PropertyViolation.class, check).property());
  }
}
