package dev.leasehold.peers;

import static org.junit.jupiter.api.Assertions.assertNull;

import dev.leasehold.testkit.blackbox.BlackBoxConformance;
import dev.leasehold.testkit.runner.PropertyViolation;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** Chains on which the lane itself once judged wrongly, replayed on the library that showed it. */
class LaneRegressionIntegrationTests {
  @Test
  void aRenewToldLost_afterItsReplyWasLost_isNotCountedAsAChange() throws URISyntaxException {
    Path chain = Path.of(Objects.requireNonNull(
        getClass().getResource("/lane/renew-told-lost-after-lost-reply.chain")).toURI());
    for (int i = 0; i < 3; i++) {
      PropertyViolation v = BlackBoxConformance.of(LeaseholdPort.library()).printTo(s -> {}).replay(chain);
      assertNull(v, () -> v.getMessage());
    }
  }
}
