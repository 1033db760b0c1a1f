package dev.leasehold.redis;

import dev.leasehold.lease.LeaseState;
import java.time.Duration;
import java.time.Instant;

/**
 * What a {@link RedisLeaseHandle} believes about its lease, as one consistent view swapped
 * atomically: {@code deadline} is on the monotonic clock, in ns, and {@code state} is what the
 * last reply left (the stored state of the spec's {@code hs}). While a request of the handle is in
 * flight the server may apply it at any moment, so {@link #validUntil()} and {@link #observed()}
 * already allow for it (the spec's {@code Deadline(a)} and {@code Observed(a)}). The server's
 * expiry is kept as its two numbers rather than an {@link Instant}: a belief is kept per held lease.
 *
 * <p>This record is immutable.
 */
record Belief(LeaseState state, long deadline, long expirySecond, int expiryNano, InFlight inFlight) {
  /** The request of the handle whose reply has not come back yet. */
  sealed interface InFlight {
    InFlight NONE = new Nothing();

    record Nothing() implements InFlight {}

    /** A renew(ttl) sent at start: once applied the server may hold only start + ttl, so cap is start + ttl - drift. */
    record Renew(long cap) implements InFlight {}

    /** A release: the key may be gone at any moment, so an ACTIVE handle reads UNKNOWN. */
    record Release() implements InFlight {}
  }

  Belief(LeaseState state, long deadline, Instant serverExpiry) {
    this(state, deadline, serverExpiry.getEpochSecond(), serverExpiry.getNano(), InFlight.NONE);
  }

  /** The wall-clock instant the server's lease ends at, as the last reply reported it. */
  Instant serverExpiry() {
    return Instant.ofEpochSecond(expirySecond, expiryNano);
  }

  /** The deadline to rely on now: a renew in flight may already have shortened the lease. */
  long validUntil() {
    return inFlight instanceof InFlight.Renew r ? Math.min(deadline, r.cap()) : deadline;
  }

  /** What state() answers: an ACTIVE handle whose release is in flight may already be gone. */
  LeaseState observed() {
    return state == LeaseState.ACTIVE && inFlight instanceof InFlight.Release ? LeaseState.UNKNOWN : state;
  }

  /** Local expiry, stored: a live belief whose deadline (capped by a renew in flight) has passed at {@code now} becomes LOST for good. */
  Belief expire(long now) {
    return state.isLive() && now - validUntil() >= 0 ? ended(LeaseState.LOST) : this;
  }

  /** What this belief leaves to rely on at {@code now}; zero unless it reads ACTIVE. */
  Duration remaining(long now) {
    return observed() == LeaseState.ACTIVE ? Duration.ofNanos(Math.max(0, validUntil() - now)) : Duration.ZERO;
  }

  Belief sending(InFlight request) {
    return new Belief(state, deadline, expirySecond, expiryNano, request);
  }

  Belief ended(LeaseState end) {
    return new Belief(end, deadline, expirySecond, expiryNano, inFlight);
  }
}
