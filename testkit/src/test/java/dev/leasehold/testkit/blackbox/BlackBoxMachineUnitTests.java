package dev.leasehold.testkit.blackbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.testkit.runner.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lane's rewrites for shrinking: adjacent ticks merged, a pause written as a tick. */
class BlackBoxMachineUnitTests {
  /** The rewrites read only the chain and the longest TTL. */
  private final BlackBoxMachine machine = new BlackBoxMachine(null, null, () -> {}, 0, null, 400, null);

  @Test
  void adjacentTicksAreMerged_andAPauseBecomesATickOfTheSameTime() {
    List<Step> chain = List.of(Step.parse("tryAcquire(client=0, ttlMs=80)"), Step.parse("tick(ms=100)"),
        Step.parse("tick(ms=50)"), Step.parse("pause(client=1, ms=300)"), Step.parse("release(client=0)"));
    assertEquals(List.of(
        List.of(chain.get(0), Step.parse("tick(ms=150)"), chain.get(3), chain.get(4)),
        List.of(chain.get(0), chain.get(1), chain.get(2), Step.parse("tick(ms=300)"), chain.get(4))),
        machine.rewrites(chain));
  }

  @Test
  void ticksLongerTogetherThanTheLongestPause_stayApart() {
    List<Step> chain = List.of(Step.parse("tick(ms=500)"), Step.parse("tick(ms=400)"));
    assertEquals(List.of(), machine.rewrites(chain));
  }
}
