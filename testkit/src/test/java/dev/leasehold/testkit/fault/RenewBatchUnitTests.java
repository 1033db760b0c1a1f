package dev.leasehold.testkit.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.GatewayReply.Change;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.testkit.sim.SimulatedGateway;
import dev.leasehold.testkit.sim.SimulatedRedis;
import dev.leasehold.testkit.sim.VirtualClock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The watchdog's batches as the property suite sends them ({@link FaultyGateway#flushRenewals}
 * over {@link SimulatedGateway#renewAll}): several leases of distinct keys in one RENEW call, each
 * answered by its own element of the reply, and one armed fault for the whole call: the gateway
 * alone, on three keys whose leases answer differently. The property suite's BatchMachine checks
 * the same batches with the adapter, the watchdog and a twin per key.
 */
class RenewBatchUnitTests {
  private static final LeaseKeys HELD = new LeaseKeys("leasehold:lease:v1:{a}");
  private static final LeaseKeys ABSENT = new LeaseKeys("leasehold:lease:v1:{b}");
  private static final LeaseKeys OTHER = new LeaseKeys("leasehold:lease:v1:{c}");

  private final VirtualClock clock = new VirtualClock();
  private final SimulatedRedis redis = new SimulatedRedis(clock);
  private final FaultyGateway gateway = new FaultyGateway(new SimulatedGateway(redis));

  @BeforeEach
  void setUp() {
    gateway.gatherRenewals();
    gateway.stampCallsWith(() -> 0L);
    redis.call("SET", HELD.lease(), "mine", "PX", "1000");
    redis.call("SET", OTHER.lease(), "theirs", "PX", "1000");
  }

  private List<CompletableFuture<Change>> sendThree() {
    return List.of(gateway.renewAsync(HELD, "mine", 5_000, 0), gateway.renewAsync(ABSENT, "mine", 5_000, 0),
        gateway.renewAsync(OTHER, "mine", 5_000, 0));
  }

  @Test
  void eachLeaseIsAnsweredByItsOwnElementOfOneCall() {
    List<CompletableFuture<Change>> replies = sendThree();
    assertFalse(replies.get(0).isDone(), "held until the batch is sent");
    assertEquals(new FaultyGateway.Flushed(3, null), gateway.flushRenewals());
    assertEquals(List.of(Change.APPLIED, Change.ABSENT, Change.OTHER), replies.stream().map(CompletableFuture::join).toList());
    List<FaultyGateway.Call> calls = gateway.drainCalls();
    assertEquals(3, calls.size(), "one recorded call per lease");
    assertEquals(1, calls.stream().map(c -> List.of(c.kind(), String.valueOf(c.fault()), c.sentAt())).distinct().count(),
        "one fault and one instant for the batch: " + calls);
    assertEquals(5_000L, redis.call("PTTL", HELD.lease()));
    assertEquals(1_000L, redis.call("PTTL", OTHER.lease()));
  }

  @Test
  void aSentBatchAnswersItsLeasesOneAtATime() {
    List<CompletableFuture<Change>> replies = sendThree();
    FaultyGateway.SentBatch sent = gateway.sendRenewals();
    assertEquals(5_000L, redis.call("PTTL", HELD.lease()), "the server ran the batch at its send");
    assertEquals(List.of(false, false, false), replies.stream().map(CompletableFuture::isDone).toList());
    sent.answer(0);
    assertEquals(List.of(true, false, false), replies.stream().map(CompletableFuture::isDone).toList());
    sent.answer(1);
    sent.answer(2);
    assertEquals(List.of(Change.APPLIED, Change.ABSENT, Change.OTHER), replies.stream().map(CompletableFuture::join).toList());
  }

  @Test
  void aRefusedBatchFailsEveryLeaseAndChangesNothing() {
    gateway.arm(Fault.REFUSE);
    List<CompletableFuture<Change>> replies = sendThree();
    assertEquals(new FaultyGateway.Flushed(3, Fault.REFUSE), gateway.flushRenewals());
    for (CompletableFuture<Change> r : replies) {
      assertTrue(failure(r).provablyNotApplied());
    }
    assertEquals(1_000L, redis.call("PTTL", HELD.lease()));
  }

  @Test
  void aLostBatchReplyIsAppliedAndFailsEveryLeaseAsUnanswered() {
    gateway.arm(Fault.LOSE_REPLY);
    List<CompletableFuture<Change>> replies = sendThree();
    gateway.flushRenewals();
    for (CompletableFuture<Change> r : replies) {
      assertFalse(failure(r).provablyNotApplied());
    }
    assertEquals(5_000L, redis.call("PTTL", HELD.lease()));
  }

  @Test
  void aDelayedBatchKeepsEachLeaseAsALateRequestOfItsOwn() {
    gateway.arm(Fault.TIMEOUT);
    List<CompletableFuture<Change>> replies = sendThree();
    gateway.flushRenewals();
    replies.forEach(r -> assertFalse(failure(r).provablyNotApplied()));
    assertEquals(List.of("mine", "mine", "mine"), gateway.delayed().stream().map(FaultyGateway.Delayed::ownership).toList());
    assertEquals(1_000L, redis.call("PTTL", HELD.lease()));
    gateway.applyLate(0);
    assertEquals(5_000L, redis.call("PTTL", HELD.lease()));
  }

  private static GatewayException failure(CompletableFuture<Change> reply) {
    assertTrue(reply.isCompletedExceptionally(), "every lease of a failed call fails");
    try {
      reply.join();
      throw new AssertionError("unreachable");
    } catch (CompletionException e) {
      return (GatewayException) e.getCause();
    }
  }
}
