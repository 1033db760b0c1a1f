package dev.leasehold.testkit.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.GatewayException.Failure;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every shape of lettuce's exceptions the faults inject is one the gateway's real mapping sorts as
 * the fault means: a chain that meets a fault judges the adapter on what happened on the server, and
 * a shape sorted otherwise would blame the adapter for the mapping (or hide the mapping's bug).
 */
class LettuceFaultsUnitTests {
  private static final Map<Fault, Failure> MEANT = Map.of(
      Fault.LOSE_REPLY, Failure.AMBIGUOUS,
      Fault.TIMEOUT, Failure.AMBIGUOUS,
      Fault.REFUSE_BEFORE_SEND, Failure.NOT_SENT,
      Fault.REFUSE, Failure.OVERLOADED,
      Fault.REFUSE_LASTING, Failure.REFUSED);

  @Test
  void everyShapeOfAFault_isSortedAsTheFaultMeans_andEachComesUp() {
    for (Map.Entry<Fault, Failure> e : MEANT.entrySet()) {
      int shapes = LettuceFaults.shapes(e.getKey());
      Set<String> messages = new HashSet<>();
      for (long n = 0; n < 2L * shapes; n++) {
        var failure = LettuceFaults.failure(e.getKey(), n);
        assertEquals(e.getValue(), failure.failure(), e.getKey() + " shape " + n + ": " + failure.getMessage());
        messages.add(failure.getMessage());
      }
      assertTrue(shapes >= 3, e.getKey() + " has several shapes");
      assertEquals(shapes, messages.size(), e.getKey() + ": every shape comes up, each its own: " + messages);
    }
  }

  @Test
  void aSlowReply_isNoFailure() {
    assertThrows(IllegalArgumentException.class, () -> LettuceFaults.failure(Fault.SLOW_REPLY, 0));
  }
}
