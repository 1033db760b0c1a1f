package dev.leasehold.testkit.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
        assertEquals(kind.name(), decode(machine, step).name(), step.toString());
      }
    }
  }

  @Test
  void stepsDecodeOntoTheChainsTimeGrid() {
    LeaseMachine onTicks = new LeaseMachine(WorldConfig.simulated(PortFactory.FIXED).conformingToSpec());
    assertEquals(new ChainAction.Renew(3, 130), decode(onTicks, Step.parse("renew(handle=3, ttlMs=121)")));
    assertEquals(new ChainAction.Tick(20_000_000), decode(onTicks, Step.parse("tick(micros=25000)")));
    assertEquals(new ChainAction.Arm(Fault.TIMEOUT, 0), decode(onTicks, Step.parse("timeout()")));
    assertEquals(new ChainAction.Effect(1, true), decode(onTicks, Step.parse("effect(handle=1, stale=1)")));
  }

  @Test
  void theConfigurationLeavesOutTheActionsItExcludes() {
    LeaseMachine machine = new LeaseMachine(WorldConfig.simulated(PortFactory.FIXED));
    assertFalse(machine.actions().stream().anyMatch(a -> a.name().equals(ActionName.RESTART.chainName())));
  }

  /** As the runner's step becomes the world's action: by the kind of its name. */
  private static ChainAction decode(LeaseMachine machine, Step step) {
    ActionKind<LeaseWorld> kind = machine.actions().stream().filter(a -> a.name().equals(step.action())).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no action " + step.action()));
    return ((LeaseMachine.Kind) kind).decode().apply(step.args());
  }
}
