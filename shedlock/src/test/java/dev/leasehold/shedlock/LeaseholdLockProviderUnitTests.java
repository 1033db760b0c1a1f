package dev.leasehold.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.support.LockException;
import org.junit.jupiter.api.Test;

/** What the provider does with outcomes a real server gives rarely, on a port that answers as told. */
class LeaseholdLockProviderUnitTests {
  /** Answers every tryAcquire with the next outcome given, and keeps the requests. */
  private static final class ScriptedPort implements DistributedLeasePort {
    private final List<AcquireOutcome> outcomes;
    final List<LeaseRequest> requests = new ArrayList<>();

    ScriptedPort(AcquireOutcome... outcomes) {
      this.outcomes = new ArrayList<>(List.of(outcomes));
    }

    @Override
    public LeaseAttempt newAttempt(String operationId) {
      return new LeaseAttempt("o".repeat(32), operationId);
    }

    @Override
    public AcquireOutcome tryAcquire(LeaseRequest request) {
      requests.add(request);
      return outcomes.remove(0);
    }

    @Override
    public InspectOutcome inspect(LeaseInspection inspection) {
      throw new UnsupportedOperationException();
    }

    @Override
    public LeaseGuarantee guarantee() {
      return LeaseGuarantee.EFFICIENCY_ONLY;
    }
  }

  private static LockConfiguration config() {
    return new LockConfiguration(Instant.now(), "nightly.export#1", Duration.ofSeconds(30), Duration.ZERO);
  }

  @Test
  void anUnknownOutcome_isAskedAgainWithTheSameAttempt_thenRefusedAsALockException() {
    ScriptedPort port = new ScriptedPort(new AcquireOutcome.Indeterminate("shedlock-1"),
        new AcquireOutcome.Indeterminate("shedlock-1"));

    assertThrows(LockException.class, () -> new LeaseholdLockProvider(port).lock(config()));
    assertEquals(2, port.requests.size());
    assertEquals(port.requests.get(0), port.requests.get(1), "the second try replays the first attempt");
  }

  @Test
  void aHeldLock_isNoLock() {
    ScriptedPort port = new ScriptedPort(new AcquireOutcome.Contended(Duration.ofSeconds(3)));

    assertEquals(java.util.Optional.empty(), new LeaseholdLockProvider(port).lock(config()));
  }

  @Test
  void anyShedLockName_mapsToTheDigestOfItsName_underOnePurpose() {
    ScriptedPort port = new ScriptedPort(new AcquireOutcome.Contended(Duration.ofSeconds(3)));
    new LeaseholdLockProvider(port).lock(config());

    LeaseRequest sent = port.requests.get(0);
    assertEquals(LeaseholdLockProvider.DEFAULT_PURPOSE, sent.purpose());
    assertEquals(dev.leasehold.lease.ResourceDigests.sha256("nightly.export#1"), sent.resourceDigest());
    assertEquals(Duration.ofSeconds(30), sent.leaseTtl(), "lockAtMostFor is the TTL");
  }

  @Test
  void aMalformedPurpose_isRefusedWhenTheProviderIsMade() {
    assertThrows(IllegalArgumentException.class, () -> new LeaseholdLockProvider(new ScriptedPort(), "Not_A_Purpose"));
  }
}
