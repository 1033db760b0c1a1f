package dev.leasehold.testkit.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.fault.External;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WorldConfigUnitTests {
  private static final PortFactory PORTS = PortFactory.FIXED;

  @Test
  void theBuilderStartsFromTheSimulatedServersSettings() {
    WorldConfig c = WorldConfig.builder(PORTS).build();
    assertTrue(c.exact());
    assertSame(PORTS, c.ports());
    assertEquals(Duration.ofMillis(10), c.drift());
    assertEquals(FenceMode.CLOCK_FLOOR, c.fenceMode());
    assertEquals(1, c.timeStepMicros());
    assertFalse(c.specConformant());
    assertEquals(150, c.maxTimeStepMs());
    assertEquals(20, c.minTtlMs());
    assertEquals(300, c.maxTtlMs());
    assertTrue(c.waits());
    assertEquals(Set.of(), c.waived());
    assertFalse(c.allows("restart"));
    assertFalse(c.allows(LeaseMachine.CONCURRENT.get(0)));
    External.actions().forEach(a -> assertFalse(c.allows(a), a));
    assertTrue(c.allows("renew"));
  }

  @Test
  void toBuilderKeepsEverySettingAndEachSetterChangesOnlyItsOwn() {
    WorldConfig base = WorldConfig.simulated(PORTS).withRestarts();
    assertEquals(base, base.toBuilder().build());

    WorldConfig changed = base.toBuilder().drift(Duration.ofMillis(3)).times(1_000, 60, 50, 200).waits(false).build();
    assertEquals(Duration.ofMillis(3), changed.drift());
    assertEquals(1_000, changed.timeStepMicros());
    assertEquals(60, changed.maxTimeStepMs());
    assertEquals(50, changed.minTtlMs());
    assertEquals(200, changed.maxTtlMs());
    assertFalse(changed.waits());
    assertEquals(base, changed.toBuilder().drift(base.drift())
        .times(base.timeStepMicros(), base.maxTimeStepMs(), base.minTtlMs(), base.maxTtlMs()).waits(true).build());
  }
}
