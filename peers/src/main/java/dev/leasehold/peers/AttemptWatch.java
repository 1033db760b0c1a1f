package dev.leasehold.peers;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.LeaseRequest;
import java.util.Optional;

/**
 * A port that remembers the attempt of the last acquire sent through it, and the lease it granted.
 * The adapters keep their attempts and handles to themselves, as they should; the lane needs the
 * owner value that attempt puts on the server to tell whose key it reads, and, behind an API whose
 * unlock reports nothing, whether the lease was released.
 *
 * <p>This class is threadsafe.
 */
final class AttemptWatch implements DistributedLeasePort {
  private final DistributedLeasePort port;
  private volatile LeaseAttempt last;
  private volatile LeaseHandle lastGranted;

  AttemptWatch(DistributedLeasePort port) {
    this.port = port;
  }

  /** The owner value of the last acquire's attempt (a secret: compared, never printed). */
  Optional<String> lastOwnership() {
    LeaseAttempt attempt = last;
    return attempt == null ? Optional.empty() : Optional.of(attempt.ownership());
  }

  /** Whether the lease the last grant made is released (a release of a lease already lost sends nothing). */
  boolean lastGrantReleased() {
    LeaseHandle handle = lastGranted;
    return handle != null && handle.state() == LeaseState.RELEASED;
  }

  @Override
  public LeaseAttempt newAttempt(String operationId) {
    return port.newAttempt(operationId);
  }

  @Override
  public AcquireOutcome tryAcquire(LeaseRequest request) {
    last = request.attempt();
    AcquireOutcome outcome = port.tryAcquire(request);
    if (outcome instanceof AcquireOutcome.Acquired acquired) {
      lastGranted = acquired.handle();
    }
    return outcome;
  }

  @Override
  public InspectOutcome inspect(LeaseInspection inspection) {
    return port.inspect(inspection);
  }

  @Override
  public LeaseGuarantee guarantee() {
    return port.guarantee();
  }
}
