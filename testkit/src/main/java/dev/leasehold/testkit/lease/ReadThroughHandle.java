package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.RenewOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A handle as one of the library's own callers sees it in a chain ({@link Supervision},
 * {@link BatchWorld}): what it reads is the adapter's handle's ({@link #real()}), and each
 * subclass decides what its calls do (through the chain, or refused).
 *
 * <p>Threadsafe as its real handle is.
 */
abstract class ReadThroughHandle implements LeaseHandle {
  /** The adapter's handle behind this one. */
  abstract LeaseHandle real();

  /** The real handle's renewAsync, as a future; a TTL it refuses before sending, as a failed one. */
  final CompletableFuture<RenewOutcome> realRenewAsync(Duration ttl) {
    try {
      return real().renewAsync(ttl).toCompletableFuture();
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public void checkTtl(Duration ttl) {
    real().checkTtl(ttl);
  }

  @Override
  public LeaseState state() {
    return real().state();
  }

  @Override
  public Duration remainingValidity() {
    return real().remainingValidity();
  }

  @Override
  public Instant observedServerExpiry() {
    return real().observedServerExpiry();
  }

  @Override
  public OptionalLong fencingToken() {
    return real().fencingToken();
  }

  @Override
  public LeaseGuarantee guarantee() {
    return real().guarantee();
  }
}
