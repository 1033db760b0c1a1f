package dev.leasehold.spec.tlc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Derives the unreduced variant of a configuration: no view, no symmetry, time bounded. */
class UnreducedUnitTests {
  @Test
  void theVariantDropsTheViewAndTheSymmetryAndBoundsTime() {
    String cfg = """
        \\* Expected: PASS
        CONSTANTS
            Lane <- MCLane
        INIT Init
        NEXT Next
        CONSTRAINT StateConstraint
        SYMMETRY MCSymmetry
        VIEW MCView
        INVARIANT
            TypeOK
        """;
    assertEquals("""
        \\* Expected: PASS
        CONSTANTS
            Lane <- MCLane
        INIT Init
        NEXT Next
        CONSTRAINT StateConstraint TimeBound
        INVARIANT
            TypeOK
        """, Unreduced.cfg(cfg));
  }

  @Test
  void aConfigurationWithoutConstraintGetsTheTimeBoundAsOne() {
    assertEquals("INIT Init\nCONSTRAINT TimeBound\n", Unreduced.cfg("INIT Init\nVIEW MCView\n"));
  }

  @Test
  void theModuleAddsOnlyTheBound() {
    assertEquals("---- MODULE MCLease_unreduced ----\nEXTENDS MCLease\n"
        + "TimeBound == now <= 5   \\* The bound that replaces the view's relative time.\n====\n",
        Unreduced.module("MCLease_unreduced", "MCLease", 5));
  }
}
