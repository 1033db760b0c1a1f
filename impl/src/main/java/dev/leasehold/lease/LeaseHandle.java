package dev.leasehold.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A lease this process acquired (or replayed). Its budget is local: measured on a monotonic clock
 * from the instant before the request was sent, minus the drift budget, and never more than the
 * server reported. Once the budget is spent the state is {@link LeaseState#LOST}, and it stays so.
 *
 * <p>Implementations are threadsafe: a watchdog thread may renew while the application thread
 * reads {@link #state()} or releases. One handle has at most one renew or release in flight: a
 * second call waits for the first to return. While one is in flight, {@link #state()} and
 * {@link #remainingValidity()} already allow for it being applied (a renew to a shorter TTL
 * shortens the validity from its send; a release makes an {@code ACTIVE} handle read
 * {@code UNKNOWN}).
 */
public interface LeaseHandle extends AutoCloseable {
  /** The current belief; stores {@code LOST} once the local budget is spent. */
  LeaseState state();

  /** How long the caller may still rely on the lease; zero unless {@code ACTIVE}. */
  Duration remainingValidity();

  /** The wall-clock instant the server was last seen to expire the lease at, from its reply PTTL. */
  Instant observedServerExpiry();

  /** The fencing token issued with this lease, when the provider issues one. */
  OptionalLong fencingToken();

  /**
   * Extends (or shortens) the server lease to {@code ttl}. Sends nothing from {@code LOST} or
   * {@code RELEASED}, nor on an interrupted thread ({@code Unavailable}, the interrupt flag still set).
   *
   * @throws IllegalArgumentException before any I/O, if {@code ttl} is null or too long, or the
   *     whole milliseconds sent are not above the drift budget
   */
  RenewOutcome renew(Duration ttl);

  /**
   * {@link #renew(Duration)} without waiting for the reply: the stage completes with the outcome
   * {@code renew} would have returned. A handle that can sends the request and returns at once
   * (the watchdog renews this way, so that no renewal waits for another's reply); while another
   * renew or release of the handle is in flight it may send nothing and complete with
   * {@code Unavailable}. By default it runs {@code renew} on the calling thread.
   *
   * @throws IllegalArgumentException before any I/O, as {@link #renew(Duration)} throws it
   */
  default CompletionStage<RenewOutcome> renewAsync(Duration ttl) {
    return CompletableFuture.completedFuture(renew(ttl));
  }

  /**
   * Judges {@code ttl} as {@link #renew(Duration)} would, and sends nothing: a watchdog checks its
   * TTL once, when asked to watch, instead of failing every renewal. The default accepts every
   * TTL; a handle that refuses some in {@code renew} refuses the same here.
   *
   * @throws IllegalArgumentException as {@link #renew(Duration)} throws it
   */
  default void checkTtl(Duration ttl) {}

  /**
   * Deletes the server lease if this attempt still holds it. Sends nothing from {@code LOST} or
   * {@code RELEASED}. Not interruptible: a cancelled worker still gives its lease back.
   */
  ReleaseOutcome release();

  /** {@code FENCED} only when this handle carries a fencing token the effect store can check. */
  LeaseGuarantee guarantee();

  /** Releases if still live and ignores the outcome; call {@link #release()} to learn it. Idempotent. */
  @Override
  void close();
}
