package dev.leasehold.bench.scale;

import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.function.LongConsumer;

/**
 * A handle that tells how late each watchdog renewal came: the watchdog renews every
 * {@code ttl / 3} after the last renewal returned (or after the registration), so a renewal is due
 * then (the watchdog may send it up to a quarter of that earlier, with others), and one that
 * starts later was delayed by the watchdog's thread, its queue or the JVM.
 *
 * <p>This class is threadsafe as far as the handle it wraps is; the watchdog renews it from one
 * thread at a time.
 */
final class TimedHandle implements LeaseHandle {
  private final LeaseHandle handle;
  private final long intervalNanos;
  private final LongConsumer lateness;
  /** Written by one thread at a time (the watchdog renews a handle once at a time); a volatile, not an atomic, to keep the instrument's heap small. */
  private volatile long renewals;
  private volatile long lastNanos = System.nanoTime();

  TimedHandle(LeaseHandle handle, Duration ttl, LongConsumer lateness) {
    this.handle = handle;
    this.intervalNanos = ttl.toNanos() / 3;
    this.lateness = lateness;
  }

  @Override
  public RenewOutcome renew(Duration ttl) {
    sending();
    return replied(handle.renew(ttl));
  }

  /** As {@link #renew}, timed from the send to the reply, without waiting for it. */
  @Override
  public CompletionStage<RenewOutcome> renewAsync(Duration ttl) {
    sending();
    return handle.renewAsync(ttl).thenApply(this::replied);
  }

  private void sending() {
    lateness.accept(Math.max(0, System.nanoTime() - (lastNanos + intervalNanos)));
  }

  private RenewOutcome replied(RenewOutcome outcome) {
    lastNanos = System.nanoTime();
    if (outcome instanceof RenewOutcome.Renewed) {
      renewals++;
    }
    return outcome;
  }

  long renewals() {
    return renewals;
  }

  @Override
  public LeaseState state() {
    return handle.state();
  }

  @Override
  public Duration remainingValidity() {
    return handle.remainingValidity();
  }

  @Override
  public Instant observedServerExpiry() {
    return handle.observedServerExpiry();
  }

  @Override
  public OptionalLong fencingToken() {
    return handle.fencingToken();
  }

  @Override
  public void checkTtl(Duration ttl) {
    handle.checkTtl(ttl);
  }

  @Override
  public ReleaseOutcome release() {
    return handle.release();
  }

  @Override
  public LeaseGuarantee guarantee() {
    return handle.guarantee();
  }

  @Override
  public void close() {
    handle.close();
  }

  @Override
  public String toString() {
    return handle.toString();
  }
}
