package dev.leasehold.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;

/** What the registry does with outcomes a real server gives rarely, on a port that answers as told. */
class LeaseholdLockRegistryUnitTests {
  /** More tries than any bounded wait here makes: a registry that gets this far would never have returned. */
  static final int RUNAWAY = 1_000;

  /** Answers every tryAcquire that its outcome is unknown, and keeps the requests. */
  private static final class UnknownPort implements DistributedLeasePort {
    final List<LeaseRequest> requests = new ArrayList<>();

    @Override
    public LeaseAttempt newAttempt(String operationId) {
      return new LeaseAttempt("o".repeat(32), operationId);
    }

    @Override
    public AcquireOutcome tryAcquire(LeaseRequest request) {
      requests.add(request);
      if (requests.size() > RUNAWAY) {
        throw new AssertionError("asked " + RUNAWAY + " times: the registry does not stop at the end of its wait");
      }
      return new AcquireOutcome.Indeterminate(request.attempt().operationId());
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

  @Test
  void anOutcomeStillUnknownWhenTheWaitIsOver_failsTheTryLock_afterOneReplayOfTheSameAttempt() {
    UnknownPort port = new UnknownPort();
    LeaseholdLockRegistry registry = new LeaseholdLockRegistry(port);
    Lock lock = registry.obtain("nightly-export");
    CannotAcquireLockException e = assertThrows(CannotAcquireLockException.class, lock::tryLock);
    assertTrue(e.getMessage().contains("still unknown"), e.getMessage());
    assertEquals(2, port.requests.size(), "one try and one replay for a wait of zero");
    assertEquals(port.requests.get(0).attempt(), port.requests.get(1).attempt(), "the replay sends the same attempt");
    assertFalse(lock.toString().contains("held"), "the failed try left the lock held: " + lock);
  }
}
