package dev.leasehold.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

/**
 * A {@link LeaseHandle} decorator that meters {@link #renew} and {@link #release} through the
 * {@link MeteredLeasePort} that returned it. Reads are not metered.
 *
 * <p>This class is threadsafe.
 */
public final class MeteredLeaseHandle implements LeaseHandle {
  private final LeaseHandle delegate;
  private final MeteredLeasePort meters;

  MeteredLeaseHandle(LeaseHandle delegate, MeteredLeasePort meters) {
    this.delegate = delegate;
    this.meters = meters;
  }

  public LeaseHandle delegate() {
    return delegate;
  }

  @Override
  public LeaseState state() {
    return delegate.state();
  }

  @Override
  public Duration remainingValidity() {
    return delegate.remainingValidity();
  }

  @Override
  public Instant observedServerExpiry() {
    return delegate.observedServerExpiry();
  }

  @Override
  public OptionalLong fencingToken() {
    return delegate.fencingToken();
  }

  @Override
  public RenewOutcome renew(Duration ttl) {
    return meters.time("renew", () -> delegate.renew(ttl));
  }

  @Override
  public CompletionStage<RenewOutcome> renewAsync(Duration ttl) {
    return meters.timeAsync("renew", () -> delegate.renewAsync(ttl));
  }

  @Override
  public void checkTtl(Duration ttl) {
    delegate.checkTtl(ttl);
  }

  @Override
  public ReleaseOutcome release() {
    return meters.time("release", delegate::release);
  }

  @Override
  public LeaseGuarantee guarantee() {
    return delegate.guarantee();
  }

  /** Releases (metered) if still live; idempotent. */
  @Override
  public void close() {
    if (delegate.state().isLive()) {
      release();
    }
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
