package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What every gateway sends and how it reads the replies, without a server. */
class ScriptCallsUnitTests {
  private static final LeaseKeys KEYS = new LeaseKeys("ns:lease:v1:{p:d}");

  @Test
  void eachCallSendsTheKeysAndArgumentsItsScriptReads() {
    ScriptCalls.Call acquire = ScriptCalls.acquire(KEYS, "tok:op", "tok", 1500, FenceMode.CLOCK_FLOOR, 60_000);
    assertEquals(List.of(KEYS.lease(), KEYS.fence()), acquire.keys());
    assertEquals(List.of("tok:op", "tok:", "1500", "clock", "60000"), acquire.args());
    assertTrue(acquire.arrayReply());
    ScriptCalls.Call renew = ScriptCalls.renew(KEYS, "tok:op", 200, 60_000);
    assertEquals(List.of(KEYS.lease(), KEYS.fence()), renew.keys());
    assertEquals(List.of("60000", "tok:op", "200"), renew.args());
    assertTrue(renew.arrayReply());
    LeaseKeys other = new LeaseKeys("ns:lease:v1:{p:e}");
    ScriptCalls.Call both = ScriptCalls.renewAll(List.of(new ScriptCalls.Renewal(KEYS, "tok:op", 200),
        new ScriptCalls.Renewal(other, "tok:op2", 300)), 0);
    assertEquals(List.of(KEYS.lease(), KEYS.fence(), other.lease(), other.fence()), both.keys());
    assertEquals(List.of("0", "tok:op", "200", "tok:op2", "300"), both.args());
    assertFalse(ScriptCalls.release(KEYS, "tok:op").arrayReply());
    assertEquals(List.of(KEYS.lease()), ScriptCalls.release(KEYS, "tok:op").keys());
    assertEquals(LeaseScript.INSPECT, ScriptCalls.inspect(KEYS, "tok:op").script());
  }

  @Test
  void aRenewReplyHasOneChangePerLease_orItIsUnreadable() {
    assertEquals(List.of(GatewayReply.Change.APPLIED, GatewayReply.Change.ABSENT, GatewayReply.Change.OTHER),
        ScriptCalls.renewReply(List.of(1L, 0L, -1L), 3));
    GatewayException shortReply = assertThrows(GatewayException.class, () -> ScriptCalls.renewReply(List.of(1L), 2));
    assertEquals(GatewayException.Failure.AMBIGUOUS, shortReply.failure());
    assertEquals(GatewayException.Failure.AMBIGUOUS,
        assertThrows(GatewayException.class, () -> ScriptCalls.renewReply(null, 1)).failure());
  }

  @Test
  void repliesDecodeByTheirStatus() {
    assertEquals(new GatewayReply.Granted(7), ScriptCalls.acquireReply(List.of(1L, 7L)));
    assertEquals(new GatewayReply.Replayed(7, 0), ScriptCalls.acquireReply(List.of(2L, 7L, 0L)));
    assertEquals(new GatewayReply.HeldByOther(-1, true), ScriptCalls.acquireReply(List.of(0L, 0L, -1L, 1L)));
    assertEquals(new GatewayReply.Vacant(), ScriptCalls.inspectReply(List.of(0L)));
    assertEquals(new GatewayReply.Occupied(false, 10, 3), ScriptCalls.inspectReply(List.of(1L, 0L, 10L, 3L)));
    assertEquals(GatewayReply.Change.APPLIED, ScriptCalls.changeReply(LeaseScript.RENEW, 1L));
    assertEquals(GatewayReply.Change.ABSENT, ScriptCalls.changeReply(LeaseScript.RENEW, 0L));
    assertEquals(GatewayReply.Change.OTHER, ScriptCalls.changeReply(LeaseScript.RELEASE, -1L));
  }

  @Test
  void anUnreadableReplyIsAmbiguous() {
    assertEquals(GatewayException.Failure.AMBIGUOUS,
        assertThrows(GatewayException.class, () -> ScriptCalls.changeReply(LeaseScript.RELEASE, null)).failure());
    assertEquals(GatewayException.Failure.AMBIGUOUS,
        assertThrows(GatewayException.class, () -> ScriptCalls.acquireReply(Arrays.asList(1L, null))).failure());
    assertEquals(GatewayException.Failure.AMBIGUOUS,
        assertThrows(GatewayException.class, () -> ScriptCalls.inspectReply(List.of(1L, 1L))).failure());
  }

  @Test
  void aServerErrorIsClassifiedAsLettucesWouldBe() {
    assertEquals(GatewayException.Failure.OVERLOADED, ScriptCalls.serverError("BUSY Redis is busy running a script").failure());
    assertEquals(GatewayException.Failure.REFUSED, ScriptCalls.serverError("READONLY You can't write against a read only replica.").failure());
    assertEquals(GatewayException.Failure.AMBIGUOUS, ScriptCalls.serverError("WRONGTYPE Operation against a key").failure());
  }
}
