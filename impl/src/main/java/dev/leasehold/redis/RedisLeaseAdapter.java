package dev.leasehold.redis;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.OptionalLong;

/**
 * The Redis lease adapter: {@link DistributedLeasePort} over a {@link LeaseGateway}.
 *
 * <p>Every budget is measured from the monotonic instant before the request was sent and is
 * {@code min(granted TTL, reported PTTL) - driftBudget}; a replay gets what the server has left,
 * never a fresh TTL.
 *
 * <p>A handle, its in-flight bookkeeping ({@link AttemptLedger}) and its identity belong to the
 * pair (attempt, lease key): an attempt used for two resources gets two independent handles, and
 * a reply for one key never reaches the other key's handle (with {@link FenceMode#COUNTER} both
 * may carry token 1, so a token could not tell them apart). Within one pair there is one live
 * handle: a replay refreshes it, a new grant supersedes it. The same attempt may be replayed from
 * several threads beside its handle's renew or release; each try is judged by its
 * {@link AttemptLedger.Flight}. Keep using one adapter for one attempt: ledgers are per adapter.
 *
 * <p>This class is threadsafe.
 */
public final class RedisLeaseAdapter implements DistributedLeasePort {
  private static final Base64.Encoder TOKEN_ENCODER = Base64.getUrlEncoder().withoutPadding();
  /** The shortest pause between tries while waiting, so a zero PTTL does not spin. */
  private static final Duration MIN_RETRY_PAUSE = Duration.ofMillis(1);

  private final RedisLeaseConfig config;
  private final Ledgers ledgers = new Ledgers();

  RedisLeaseAdapter(RedisLeaseConfig config) {
    this.config = config;
  }

  /**
   * Starts a configuration over {@code gateway}.
   *
   * @throws IllegalArgumentException at once if {@code gateway} is null
   */
  public static RedisLeaseConfig.Builder builder(LeaseGateway gateway) {
    return new RedisLeaseConfig.Builder(gateway);
  }

  public RedisLeaseConfig config() {
    return config;
  }

  @Override
  public LeaseAttempt newAttempt(String operationId) {
    LeaseAttempt.validOperationId(operationId);
    byte[] bytes = new byte[24];
    config.random().nextBytes(bytes);
    return new LeaseAttempt(TOKEN_ENCODER.encodeToString(bytes), operationId);
  }

  @Override
  public AcquireOutcome tryAcquire(LeaseRequest request) {
    Arguments.notNull("request", request);
    long ttlMs = config.ttlMillis("leaseTtl", request.leaseTtl());
    LeaseKeys keys = keysOf(request.purpose(), request.resourceDigest());
    long waitNanos = request.waitTimeout().toNanos();
    long deadline = config.monotonicNanos().getAsLong() + waitNanos;
    boolean earlierTryAmbiguous = false;
    while (true) {
      // Every try sends the same attempt: after an Indeterminate one this is a replay.
      AcquireOutcome outcome = honest(acquireOnce(request.attempt(), keys, ttlMs), earlierTryAmbiguous,
          request.attempt());
      earlierTryAmbiguous |= outcome instanceof AcquireOutcome.Indeterminate;
      Duration pause = retryPause(outcome);
      if (waitNanos == 0 || pause == null) {
        return outcome;
      }
      if (Thread.currentThread().isInterrupted()) {
        // Interrupted during the try (lettuce gives the flag back as Indeterminate) or just after
        // it: stop with the flag set. The last outcome says whether that request may have applied.
        return outcome;
      }
      long left = deadline - config.monotonicNanos().getAsLong();
      if (left <= 0) {
        return outcome;
      }
      try {
        // Never past the deadline; a sleeper may return early (a release signal), then we try again.
        config.sleeper().sleep(keys, Duration.ofNanos(Math.min(left, jitter(pause).toNanos())));
      } catch (InterruptedException e) {
        // Nothing is in flight while sleeping, so the last outcome is still the honest one.
        Thread.currentThread().interrupt();
        return outcome;
      }
      if (Thread.currentThread().isInterrupted() || config.monotonicNanos().getAsLong() - deadline >= 0) {
        // A sleeper that swallowed the interrupt but kept the flag must not lead to another send.
        return outcome;
      }
    }
  }

  /**
   * A try that was certainly not applied does not make the whole call certain: an earlier try of
   * the same call may have been applied, or may still be in flight. Then the call is Indeterminate.
   */
  private static AcquireOutcome honest(AcquireOutcome outcome, boolean earlierTryAmbiguous, LeaseAttempt attempt) {
    if (earlierTryAmbiguous
        && (outcome instanceof AcquireOutcome.Unavailable || outcome instanceof AcquireOutcome.Overloaded)) {
      return new AcquireOutcome.Indeterminate(attempt.operationId());
    }
    return outcome;
  }

  /**
   * How long to pause before trying the same attempt again, or null when the outcome is final.
   * An indeterminate try is retried with the same attempt: a replay, never a new acquisition.
   */
  private Duration retryPause(AcquireOutcome outcome) {
    if (outcome instanceof AcquireOutcome.Contended c) {
      return c.retryAfter();
    }
    if (outcome instanceof AcquireOutcome.Overloaded o) {
      return o.retryAfter();
    }
    if (outcome instanceof AcquireOutcome.Unavailable || outcome instanceof AcquireOutcome.Indeterminate) {
      return config.contentionRetryAfter();
    }
    return null;
  }

  /** Full jitter on the upper half: between half and all of {@code pause}, at least 1 ms. */
  private Duration jitter(Duration pause) {
    long nanos = Math.max(pause.toNanos(), MIN_RETRY_PAUSE.toNanos());
    long half = nanos / 2;
    long extra = half == 0 ? 0 : Math.floorMod(config.random().nextLong(), half + 1);
    return Duration.ofNanos(half + extra);
  }

  private AcquireOutcome acquireOnce(LeaseAttempt requested, LeaseKeys keys, long ttlMs) {
    // Open before the send, ended after the reply is judged: whatever of this pair ran meanwhile caps it.
    Ledgers.Slot slot = ledgers.beginAcquire(requested, keys.lease());
    try {
      // The ledger map's own attempt object from here on: this flight, and any handle it opens, keep the ledger.
      return acquireInFlight(slot.attempt(), keys, ttlMs, slot.ledger(), slot.flight());
    } finally {
      slot.ledger().endAcquire(slot.flight());
    }
  }

  private AcquireOutcome acquireInFlight(LeaseAttempt attempt, LeaseKeys keys, long ttlMs, AttemptLedger ledger,
      AttemptLedger.Flight flight) {
    long start = config.monotonicNanos().getAsLong();
    Instant wallStart = config.wallClock().instant();
    GatewayReply.Acquire reply;
    try {
      reply = config.gateway().acquire(keys, attempt.ownership(), attempt.ownerToken(), ttlMs, config.fenceMode(),
          config.counterRetentionMillis());
    } catch (GatewayException e) {
      return switch (e.failure()) {
        case NOT_SENT, REFUSED -> new AcquireOutcome.Unavailable(e.getMessage());
        case OVERLOADED -> new AcquireOutcome.Overloaded(config.contentionRetryAfter());
        case AMBIGUOUS -> new AcquireOutcome.Indeterminate(attempt.operationId());
      };
    }
    Opening opening = new Opening(attempt, ledger, keys, flight, start, wallStart);
    if (reply instanceof GatewayReply.Granted g) {
      LeaseGuarantee guarantee = durable(keys) ? LeaseGuarantee.FENCED : LeaseGuarantee.EFFICIENCY_ONLY;
      return new AcquireOutcome.Acquired(open(opening, g.fencingToken(), guarantee, ttlMs, null));
    }
    if (reply instanceof GatewayReply.Replayed r) {
      // No expiry (-1) means someone PERSISTed our key: the server keeps it at least the request TTL.
      long serverMs = r.pttl() == -1 ? ttlMs : Math.min(ttlMs, r.pttl());
      RedisLeaseHandle live = ledger.handle();
      // The token the live handle already vouches for keeps its guarantee. Another one came from a
      // grant whose WAIT nobody saw (a lost reply, a delayed request of this attempt): WAIT now,
      // as spec Lease.tla's Acked asks of a replay too. The key still holds this attempt's value,
      // so the primary's counter is at least the token, and a replica that acknowledges now has it.
      boolean sameGrant = live != null && live.fencingToken().equals(tokenOf(r.fencingToken()));
      return new AcquireOutcome.ReplayedSameOperation(open(opening, r.fencingToken(),
          sameGrant ? live.guarantee() : durable(keys) ? LeaseGuarantee.FENCED : LeaseGuarantee.EFFICIENCY_ONLY,
          serverMs, live));
    }
    GatewayReply.HeldByOther h = (GatewayReply.HeldByOther) reply;
    if (h.sameOwnerToken()) {
      return new AcquireOutcome.OwnerOperationConflict();
    }
    return new AcquireOutcome.Contended(h.pttl() > 0 ? Duration.ofMillis(h.pttl()) : config.contentionRetryAfter());
  }

  /** One try's request, for opening or refreshing a handle of its pair once the reply is in. */
  private record Opening(LeaseAttempt attempt, AttemptLedger ledger, LeaseKeys keys, AttemptLedger.Flight flight,
      long start, Instant wallStart) {}

  /**
   * The handle for a grant or a replay. A replay while the pair's handle is still live refreshes
   * that handle, so one pair never has two live handles; otherwise a new handle supersedes the old
   * one (a grant means the server had lost the old lease).
   */
  private RedisLeaseHandle open(Opening o, long token, LeaseGuarantee guarantee, long serverMs,
      RedisLeaseHandle replayInto) {
    synchronized (o.ledger()) {
      OptionalLong fencingToken = tokenOf(token);
      // Another token proves a grant happened in between: the live handle's lease is gone.
      if (replayInto != null && replayInto.fencingToken().equals(fencingToken)
          && replayInto.absorbReplay(o.flight(), o.start(), o.wallStart(), serverMs)) {
        return replayInto;
      }
      RedisLeaseHandle previous = o.ledger().handle();
      if (previous != null) {
        previous.supersede();
      }
      RedisLeaseHandle handle = new RedisLeaseHandle(config, o.attempt(), o.ledger(), o.keys(), fencingToken, guarantee,
          o.flight(), o.start(), o.wallStart(), serverMs);
      o.ledger().handle(handle);
      return handle;
    }
  }

  /** A script's token: 0 means none was issued. */
  private static OptionalLong tokenOf(long token) {
    return token > 0 ? OptionalLong.of(token) : OptionalLong.empty();
  }

  /** Whether the grant just made or replayed on {@code keys} reached the replicas the configuration asks for. */
  private boolean durable(LeaseKeys keys) {
    if (config.replicaAcks() == 0) {
      return true;
    }
    try {
      return config.gateway().waitForReplicas(keys, config.replicaAcks(), config.replicaAckTimeout()) >= config.replicaAcks();
    } catch (GatewayException e) {
      return false;
    }
  }

  @Override
  public InspectOutcome inspect(LeaseInspection inspection) {
    Arguments.notNull("inspection", inspection);
    LeaseKeys keys = keysOf(inspection.purpose(), inspection.resourceDigest());
    GatewayReply.Inspect reply;
    try {
      reply = config.gateway().inspect(keys, inspection.attempt().ownership());
    } catch (GatewayException e) {
      return e.provablyNotApplied()
          ? new InspectOutcome.Unavailable(e.getMessage())
          : new InspectOutcome.Indeterminate(e.getMessage());
    }
    if (reply instanceof GatewayReply.Occupied o) {
      return new InspectOutcome.Held(o.thisAttempt(), Duration.ofMillis(Math.max(0, o.pttl())),
          o.fencingToken() > 0 ? OptionalLong.of(o.fencingToken()) : OptionalLong.empty());
    }
    return new InspectOutcome.Absent();
  }

  /** Every grant carries a fencing token; without replica acknowledgement it may not survive a failover. */
  @Override
  public LeaseGuarantee guarantee() {
    return LeaseGuarantee.FENCED;
  }

  /**
   * The keys of one lease under this adapter's namespace and key version.
   *
   * @throws IllegalArgumentException if the purpose or digest is malformed, as {@link LeaseRequest}
   *     would reject it (the message never shows the value)
   */
  public LeaseKeys keys(String purpose, String resourceDigest) {
    // Validated: a key built from anything else could break the hash tag, and is printed in toString().
    return keysOf(LeaseRequest.validPurpose(purpose), LeaseRequest.validDigest(resourceDigest));
  }

  /** The keys of a purpose and digest that a {@link LeaseRequest} or {@link LeaseInspection} already validated. */
  private LeaseKeys keysOf(String purpose, String resourceDigest) {
    return LeaseKeys.of(config.namespace(), config.keyVersion(), purpose, resourceDigest);
  }
}
