package dev.leasehold.model.seed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.LettuceLeaseGateway;
import dev.leasehold.testkit.blackbox.BlackBoxConformance;
import dev.leasehold.testkit.blackbox.BlackBoxProperty;
import dev.leasehold.testkit.blackbox.LeasePortLibrary;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.runner.PropertyViolation;
import dev.leasehold.testkit.sim.LeaseClock;
import io.lettuce.core.RedisURI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The seed fixture judged from outside, through the black-box lane, like any lock library. Of its
 * defects, one shows in what a client believes and the server holds:
 * {@link SeedDefect#REPLAY_BUDGET_FROM_FULL_TTL} (ValidityWithinServerLease), replayed here from its
 * chain; the same chain passes without the defect. docs/black-box.md says why the others do not
 * show from outside.
 */
class SeedBlackBoxIntegrationTests {
  static final Duration DRIFT = Duration.ofMillis(10);

  @Test
  void theReplayBudgetDefect_breaksValidityWithinServerLease_fromOutside() throws URISyntaxException {
    PropertyViolation violation = lane(EnumSet.of(SeedDefect.REPLAY_BUDGET_FROM_FULL_TTL)).replay(chain());
    assertNotNull(violation, "the lane no longer sees the seed's replay budget");
    assertEquals(BlackBoxProperty.ValidityWithinServerLease.name(), violation.property(), violation.getMessage());
  }

  @Test
  void theSameChain_passesWithoutTheDefect() throws URISyntaxException {
    PropertyViolation violation = lane(EnumSet.noneOf(SeedDefect.class)).replay(chain());
    assertNull(violation, () -> violation.getMessage());
  }

  private static Path chain() throws URISyntaxException {
    return Path.of(Objects.requireNonNull(
        SeedBlackBoxIntegrationTests.class.getResource("/black-box/seed-replay-budget.chain")).toURI());
  }

  private static BlackBoxConformance lane(Set<SeedDefect> defects) {
    String name = defects.isEmpty() ? "seed" : "seed-" + defects.iterator().next().name().toLowerCase();
    LeasePortLibrary seed = new LeasePortLibrary(name, LeaseWorld.PURPOSE, digest -> LeaseWorld.KEYS.lease(),
        endpoint -> {
          LettuceLeaseGateway gateway = LettuceLeaseGateway.connect(RedisURI.create(endpoint.uri()),
              endpoint.commandTimeout());
          var port = SeedLeaseAdapter.factory(LeaseWorld.KEYS, defects).create(gateway, new LiveClock(), DRIFT,
              FenceMode.CLOCK_FLOOR, new SecureRandom(), (keys, d) -> Thread.sleep(d.toMillis()));
          return new LeasePortLibrary.Connection(port, gateway);
        });
    return BlackBoxConformance.of(seed).printTo(s -> {}).reportDir(Path.of("target", "black-box"));
  }

  /** Real time, as the lane runs in: the server's clock and the client's are the same. */
  private static final class LiveClock extends LeaseClock {
    private final long base = System.nanoTime();

    @Override
    public long trueNanos() {
      return System.nanoTime() - base;
    }

    @Override
    public void advance(long nanos) {
      throw new UnsupportedOperationException("real time passes by itself");
    }
  }
}
