package dev.leasehold.testkit.blackbox;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Any {@link DistributedLeasePort} as a {@link LockLibrary}: Leasehold's own adapter, or another
 * implementation of the port, judged from outside like every other library. A handle's
 * {@code remainingValidity()} is the client's belief and its fencing token the grant's token. After
 * an {@code Indeterminate} acquire the next acquire replays the same attempt, as the port's contract
 * tells callers to; {@code Indeterminate} renews and releases, and those that end
 * {@code Unavailable} or {@code Overloaded} (which say nothing about the hold), are unknown outcomes.
 *
 * <p>This class is threadsafe; its clients are not (the kit calls one method at a time).
 */
public final class LeasePortLibrary implements LockLibrary {
  /** Opens a port whose clients talk to {@code endpoint}. */
  @FunctionalInterface
  public interface Connector {
    Connection connect(Endpoint endpoint) throws Exception;
  }

  /** A port and what closes it (its connection). */
  public record Connection(DistributedLeasePort port, AutoCloseable closer) {}

  private final String name;
  private final String purpose;
  private final UnaryOperator<String> keyOfDigest;
  private final Connector connector;

  /**
   * @param keyOfDigest the lease key for a resource digest (the layout the port documents)
   */
  public LeasePortLibrary(String name, String purpose, UnaryOperator<String> keyOfDigest, Connector connector) {
    this.name = name;
    this.purpose = purpose;
    this.keyOfDigest = keyOfDigest;
    this.connector = connector;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Traits traits() {
    return new Traits(true, true, true, true);
  }

  @Override
  public String key(String resource) {
    return keyOfDigest.apply(ResourceDigests.sha256(resource));
  }

  @Override
  public ServerLock read(ServerView redis, String key) {
    return ServerLock.ofStringKey(redis, key);
  }

  @Override
  public LockClient connect(Endpoint endpoint) throws Exception {
    return new Client(connector.connect(endpoint));
  }

  private final class Client implements LockClient {
    private final Connection connection;
    private final Map<String, LeaseAttempt> attempts = new HashMap<>();
    private final Map<String, LeaseHandle> handles = new HashMap<>();
    /** Resources whose last acquire was Indeterminate: the next acquire replays its attempt. */
    private final Set<String> unknown = new HashSet<>();
    private long operations;

    Client(Connection connection) {
      this.connection = connection;
    }

    @Override
    public Grant tryAcquire(String resource, Duration ttl) {
      DistributedLeasePort port = connection.port();
      LeaseAttempt attempt = unknown.contains(resource) ? attempts.get(resource)
          : port.newAttempt("op-" + ++operations);
      attempts.put(resource, attempt);
      handles.remove(resource);
      AcquireOutcome outcome;
      try {
        outcome = port.tryAcquire(LeaseRequest.once(purpose, ResourceDigests.sha256(resource), ttl, attempt));
      } catch (RuntimeException e) {
        unknown.add(resource);   // a port that throws leaves the outcome unknown too
        throw e;
      }
      if (!(outcome instanceof AcquireOutcome.Unavailable || outcome instanceof AcquireOutcome.Overloaded)) {
        unknown.remove(resource);   // answered: the attempt's fate is known; a refusal leaves it unknown
      }
      LeaseHandle handle = outcome instanceof AcquireOutcome.Acquired a ? a.handle()
          : outcome instanceof AcquireOutcome.ReplayedSameOperation r ? r.handle() : null;
      if (handle != null) {
        handles.put(resource, handle);
        return new Grant.Acquired(ttl, handle.fencingToken());
      }
      if (outcome instanceof AcquireOutcome.Indeterminate) {
        unknown.add(resource);
        throw new IllegalStateException("Indeterminate: the acquire may have been applied");
      }
      return new Grant.NotAcquired();   // Contended, OwnerOperationConflict, Unavailable, Overloaded
    }

    @Override
    public boolean renew(String resource, Duration ttl) {
      LeaseHandle handle = handles.get(resource);
      if (handle == null) {
        return false;
      }
      RenewOutcome outcome = handle.renew(ttl);
      if (outcome instanceof RenewOutcome.Renewed) {
        return true;
      }
      if (outcome instanceof RenewOutcome.Lost || outcome instanceof RenewOutcome.NotActive) {
        return false;
      }
      throw new IllegalStateException("renew: " + outcome.getClass().getSimpleName());
    }

    @Override
    public boolean release(String resource) {
      unknown.remove(resource);
      LeaseHandle handle = handles.remove(resource);
      if (handle == null) {
        return false;
      }
      ReleaseOutcome outcome = handle.release();
      if (outcome instanceof ReleaseOutcome.Released) {
        return true;
      }
      if (outcome instanceof ReleaseOutcome.AlreadyAbsent || outcome instanceof ReleaseOutcome.NotOwner
          || outcome instanceof ReleaseOutcome.NotActive) {
        return false;
      }
      throw new IllegalStateException("release: " + outcome.getClass().getSimpleName());
    }

    @Override
    public Optional<Duration> belief(String resource) {
      LeaseHandle handle = handles.get(resource);
      return handle == null || handle.state() != LeaseState.ACTIVE ? Optional.empty()
          : Optional.of(handle.remainingValidity());
    }

    @Override
    public Optional<String> holderId(String resource) {
      return Optional.ofNullable(attempts.get(resource)).map(LeaseAttempt::ownership);
    }

    @Override
    public void close() throws Exception {
      connection.closer().close();
    }
  }
}
