package dev.leasehold.spec.tlc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Reads real {@code -tool} outputs of TLC 2.18 (MCTtlCheckAfterSend, MCLeaseReplicaAck, a simulation of
 * DeepLeaseFencing, MCLiveness with a client that waits for a lost reply for ever).
 */
class TlcOutputUnitTests {
  private static String resource(String name) throws IOException {
    try (InputStream in = TlcOutputUnitTests.class.getResourceAsStream("/tlc/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void aViolationGivesThePropertyAndTheCounterexample() throws IOException {
    TlcOutput out = TlcOutput.parse(resource("violation.out"));
    assertEquals("CertaintyIsHonest", out.violated());
    assertEquals(List.of("Init", "TryAcquire", "Apply", "Deliver"), out.trace().stream().map(TlcOutput.State::action).toList());
    assertEquals(4, out.depth());
    assertEquals("\"acquire\"", TlaValues.entries(TlaValues.entries(TlaValues.entries(
        out.trace().get(1).vars().get("call")).get("a1")).get("t1")).get("kind"));
  }

  @Test
  void aTemporalViolationGivesItsLasso() throws IOException {
    // TLC names no temporal property: PropertyNames maps it to the one the configuration lists.
    TlcOutput out = TlcOutput.parse(resource("temporal.out"));
    assertEquals(TlcOutput.TEMPORAL, out.violated());
    assertEquals(List.of("Init", "TryAcquire", "Apply", "RelativeTick", "RelativeTick", "RelativeTick", "LoseReply",
        "RelativeTick"), out.trace().stream().map(TlcOutput.State::action).toList());
    assertEquals(8, out.depth());
    assertEquals("stuttering", out.loop());
  }

  @Test
  void aLassoThatReturnsToAnEarlierStateSaysWhichAndByWhatStep() throws IOException {
    TlcOutput out = TlcOutput.parse(resource("lasso.out"));
    assertEquals(TlcOutput.TEMPORAL, out.violated());
    assertEquals(7, out.depth());
    assertEquals("back to state 5 by Deliver", out.loop());
  }

  @Test
  void aPassGivesTheStateCountAndDepth() throws IOException {
    TlcOutput out = TlcOutput.parse(resource("pass.out"));
    assertNull(out.violated());
    assertNull(out.error());
    assertEquals(93_318, out.distinct());
    assertEquals(19, out.depth());
  }

  @Test
  void changesRecurseIntoFunctionsAndRecords() {
    Map<String, String> before = Map.of("srv", "[holder |-> None, expiry |-> 0]", "sent", "(a1 :> FALSE @@ a2 :> FALSE)");
    Map<String, String> after = Map.of("srv", "[holder |-> a1, expiry |-> 0]", "sent", "(a1 :> FALSE @@ a2 :> TRUE)");
    assertEquals(List.of("sent[a2] = FALSE → TRUE"), TlaValues.changes(Map.of("sent", before.get("sent")), Map.of("sent", after.get("sent"))));
    assertEquals(List.of("srv.holder = None → a1"), TlaValues.changes(Map.of("srv", before.get("srv")), Map.of("srv", after.get("srv"))));
  }

  @Test
  void aSimulationGivesTheStatesGeneratedAndNoDistinctCount() throws IOException {
    TlcOutput out = TlcOutput.parse(resource("simulation.out"));
    assertNull(out.violated());
    assertNull(out.error());
    assertEquals(16_811, out.generated());
    assertEquals(-1, out.distinct());
  }
}
