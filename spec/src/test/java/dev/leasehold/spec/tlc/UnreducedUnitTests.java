package dev.leasehold.spec.tlc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
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

  @Test
  void anExpectedFailureIsBoundedAtTheTimeItsCounterexampleReaches() {
    assertEquals(3, Unreduced.ticks(failure("0", "2", "3", "3"), 5));
    assertEquals(0, Unreduced.ticks(failure("0", "0"), 5));
  }

  @Test
  void theBoundNeverExceedsTheHighestOne() {
    assertEquals(5, Unreduced.ticks(failure("0", "4", "7"), 5));
  }

  @Test
  void aCounterexampleWithoutTimeKeepsTheHighestBound() {
    assertEquals(5, Unreduced.ticks(failure(), 5));
  }

  /** A reduced run that violated TerminalStays in states whose clock read {@code nows}. */
  private static ModelCheck.Result failure(String... nows) {
    List<TlcOutput.State> trace = IntStream.range(0, nows.length)
        .mapToObj(i -> new TlcOutput.State(i + 1, "Next", Map.of("now", nows[i]))).toList();
    TlcOutput out = new TlcOutput("TerminalStays", null, 10, 10, trace.size(), trace, null);
    return new ModelCheck.Result("MCLease", "TerminalStays", "TerminalStays", out, 1.0);
  }
}
