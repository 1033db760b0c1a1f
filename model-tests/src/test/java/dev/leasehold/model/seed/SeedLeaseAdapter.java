package dev.leasehold.model.seed;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.sim.LeaseClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A test-scope adapter written from the seed walkthrough (shared/seed/000_7867b479acd6e01e.txt)
 * over the same {@link LeaseGateway}, with each defect behind a {@link SeedDefect} switch. With no
 * switch on it behaves like the fixed adapter (one try per call: the fixture has no wait loop, and
 * the properties it is run with never ask for one), which a test checks, so that a property
 * failing with a switch on is caused by that switch.
 *
 * <p>This class is threadsafe.
 */
public final class SeedLeaseAdapter implements DistributedLeasePort {
  private static final Base64.Encoder TOKENS = Base64.getUrlEncoder().withoutPadding();

  private final LeaseGateway gateway;
  private final LeaseClock clock;
  private final long drift;
  private final FenceMode mode;
  private final SecureRandom random;
  private final Set<SeedDefect> defects;
  private final LeaseKeys keys;
  private final Map<LeaseAttempt, SeedLedger> ledgers = new HashMap<>();

  public SeedLeaseAdapter(LeaseGateway gateway, LeaseClock clock, Duration drift, FenceMode mode, SecureRandom random,
      LeaseKeys keys, Set<SeedDefect> defects) {
    this.gateway = gateway;
    this.clock = clock;
    this.drift = drift.toNanos();
    this.mode = mode;
    this.random = random;
    this.keys = keys;
    this.defects = defects.isEmpty() ? EnumSet.noneOf(SeedDefect.class) : EnumSet.copyOf(defects);
  }

  /** A factory for the properties; the fixture talks to the one lease key the world uses. */
  public static PortFactory factory(LeaseKeys keys, Set<SeedDefect> defects) {
    return (gateway, clock, drift, mode, random, sleeper) ->
        new SeedLeaseAdapter(gateway, clock, drift, mode, random, keys, defects);
  }

  boolean has(SeedDefect d) {
    return defects.contains(d);
  }

  long now() {
    return clock.clientNanos();
  }

  Instant wall() {
    return clock.wall().instant();
  }

  long drift() {
    return drift;
  }

  LeaseGateway gateway() {
    return gateway;
  }

  LeaseKeys keys() {
    return keys;
  }

  long checkedTtl(Duration ttl) {
    if (ttl.toNanos() <= drift) {
      throw new IllegalArgumentException("ttl must be above the drift budget");
    }
    return ttl.toMillis();
  }

  /** Unavailable, Overloaded or Indeterminate; the seed said Indeterminate to everything. */
  String classify(RuntimeException e) {
    if (has(SeedDefect.EVERY_EXCEPTION_INDETERMINATE) || !(e instanceof GatewayException g)) {
      return "Indeterminate";
    }
    return switch (g.failure()) {
      case NOT_SENT, REFUSED -> "Unavailable";
      case OVERLOADED -> "Overloaded";
      case AMBIGUOUS -> "Indeterminate";
    };
  }

  private synchronized SeedLedger ledger(LeaseAttempt a) {
    return ledgers.computeIfAbsent(a, x -> new SeedLedger());
  }

  @Override
  public LeaseAttempt newAttempt(String operationId) {
    byte[] bytes = new byte[24];
    random.nextBytes(bytes);
    return new LeaseAttempt(TOKENS.encodeToString(bytes), operationId);
  }

  @Override
  public AcquireOutcome tryAcquire(LeaseRequest request) {
    boolean late = has(SeedDefect.TTL_CHECK_AFTER_SEND);
    long ttlMs = late ? request.leaseTtl().toMillis() : checkedTtl(request.leaseTtl());
    LeaseAttempt attempt = request.attempt();
    SeedLedger ledger = ledger(attempt);
    SeedLedger.Flight flight = ledger.beginAcquire();
    try {
      return acquire(request, attempt, ledger, flight, ttlMs, late);
    } finally {
      ledger.endAcquire(flight);
    }
  }

  private AcquireOutcome acquire(LeaseRequest request, LeaseAttempt attempt, SeedLedger ledger,
      SeedLedger.Flight flight, long ttlMs, boolean late) {
    long start = now();
    Instant wallStart = wall();
    GatewayReply.Acquire reply;
    try {
      reply = gateway.acquire(keys, attempt.ownership(), attempt.ownerToken(), ttlMs, mode, 0);
      if (late) {
        checkedTtl(request.leaseTtl()); // thrown after the script ran, caught below
      }
    } catch (GatewayException | IllegalArgumentException e) {
      return switch (classify(e)) {
        case "Unavailable" -> new AcquireOutcome.Unavailable(e.getMessage());
        case "Overloaded" -> new AcquireOutcome.Overloaded(Duration.ofMillis(50));
        default -> new AcquireOutcome.Indeterminate(attempt.operationId());
      };
    }
    if (reply instanceof GatewayReply.Granted g) {
      return new AcquireOutcome.Acquired(open(attempt, ledger, flight, g.fencingToken(), start, wallStart,
          ttlMs, false));
    }
    if (reply instanceof GatewayReply.Replayed r) {
      long serverMs = has(SeedDefect.REPLAY_BUDGET_FROM_FULL_TTL) ? ttlMs : Math.min(ttlMs, r.pttl());
      return new AcquireOutcome.ReplayedSameOperation(open(attempt, ledger, flight, r.fencingToken(), start, wallStart,
          serverMs, true));
    }
    GatewayReply.HeldByOther h = (GatewayReply.HeldByOther) reply;
    if (h.sameOwnerToken()) {
      return new AcquireOutcome.OwnerOperationConflict();
    }
    return new AcquireOutcome.Contended(h.pttl() > 0 ? Duration.ofMillis(h.pttl()) : Duration.ofMillis(50));
  }

  /** One live handle per attempt: a replay of its grant (its token) refreshes it, a grant supersedes it. */
  private SeedLeaseHandle open(LeaseAttempt attempt, SeedLedger ledger, SeedLedger.Flight flight, long token,
      long start, Instant wallStart, long serverMs, boolean replay) {
    synchronized (ledger) {
      SeedLeaseHandle live = ledger.handle();
      if (replay && live != null && live.isLive() && live.fencingToken().orElse(0) == token) {
        live.grant(flight, start, wallStart, serverMs);
        return live;
      }
      if (live != null) {
        live.supersede();
      }
      SeedLeaseHandle h = new SeedLeaseHandle(this, attempt, ledger, token);
      h.grant(flight, start, wallStart, serverMs);
      ledger.handle(h);
      return h;
    }
  }

  @Override
  public InspectOutcome inspect(LeaseInspection inspection) {
    GatewayReply.Inspect reply;
    try {
      reply = gateway.inspect(keys, inspection.attempt().ownership());
    } catch (GatewayException e) {
      return classify(e).equals("Indeterminate") ? new InspectOutcome.Indeterminate(e.getMessage())
          : new InspectOutcome.Unavailable(e.getMessage());
    }
    if (reply instanceof GatewayReply.Occupied o) {
      return new InspectOutcome.Held(o.thisAttempt(), Duration.ofMillis(Math.max(0, o.pttl())),
          o.fencingToken() > 0 ? OptionalLong.of(o.fencingToken()) : OptionalLong.empty());
    }
    return new InspectOutcome.Absent();
  }

  @Override
  public LeaseGuarantee guarantee() {
    return LeaseGuarantee.FENCED;
  }
}
