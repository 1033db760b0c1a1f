package dev.leasehold.testkit.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.leasehold.testkit.fault.External;
import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.runner.ActionKind;
import dev.leasehold.testkit.runner.Step;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** How chain steps decode into typed actions: one kind per name, each decoding to an action of its own name. */
class LeaseMachineUnitTests {
  private static final WorldConfig ALL = WorldConfig.simulated(PortFactory.FIXED).withRestarts().withExternalWrites()
      .withConcurrentSteps();

  @Test
  void everyNameHasAKindAndEveryKindDecodesToAnActionOfItsName() {
    LeaseMachine machine = new LeaseMachine(ALL);
    var expected = Stream.of(Stream.of(ActionName.values()).map(ActionName::chainName),
            Stream.of(Fault.values()).map(Fault::action), External.actions().stream())
        .flatMap(s -> s).collect(Collectors.toCollection(TreeSet::new));
    var kinds = machine.actions().stream().map(ActionKind::name).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(expected, kinds);
    SplittableRandom random = new SplittableRandom(7);
    for (ActionKind<LeaseWorld> kind : machine.actions()) {
      for (int i = 0; i < 20; i++) {
        Step step = new Step(kind.name(), kind.generate(null, random));
        assertEquals(kind.name(), machine.decode(step).name(), step.toString());
      }
    }
  }

  @Test
  void stepsDecodeOntoTheChainsTimeGrid() {
    LeaseMachine onTicks = new LeaseMachine(WorldConfig.simulated(PortFactory.FIXED).conformingToSpec());
    assertEquals(new ChainAction.Renew(3, 130), onTicks.decode(Step.parse("renew(handle=3, ttlMs=121)")));
    assertEquals(new ChainAction.Tick(20_000_000), onTicks.decode(Step.parse("tick(micros=25000)")));
    assertEquals(new ChainAction.Arm(Fault.TIMEOUT, 0), onTicks.decode(Step.parse("timeout()")));
    assertEquals(new ChainAction.Effect(1, true), onTicks.decode(Step.parse("effect(handle=1, stale=1)")));
  }

  @Test
  void aStepOfAnActionTheConfigurationLeavesOutIsRefused() {
    LeaseMachine machine = new LeaseMachine(WorldConfig.simulated(PortFactory.FIXED));
    assertThrows(IllegalArgumentException.class, () -> machine.decode(Step.parse("restart()")));
  }
}
