package dev.leasehold.shedlock;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import java.time.Duration;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} whose locks are Leasehold leases: a lock named
 * {@code name} is the lease of {@link #purpose()} and {@code ResourceDigests.sha256(name)}, so any
 * ShedLock name is accepted as it is; {@code lockAtMostFor} is the lease's TTL.
 *
 * <ul>
 *   <li>{@code unlock()} before {@code lockAtLeastFor} has passed keeps the lease until it has (a
 *       renew that shortens it to what is left, rounded up to a TTL the port accepts), as
 *       ShedLock's own providers keep their record; after it, it releases the lease.
 *   <li>{@code extend(lockAtMostFor, lockAtLeastFor)} renews the lease for the new
 *       {@code lockAtMostFor} and returns the lock that replaces this one, or empty if the lease is
 *       no longer held; the old lock object is ended either way, as ShedLock requires.
 *   <li>The task that runs under the lock reads its fencing token with {@link #fencingToken()}.
 * </ul>
 *
 * <p>A lock whose outcome is unknown (the reply to the acquire was lost) is tried once more with
 * the same attempt, which the server recognises; if that is unknown too, {@code lock} throws
 * {@link LockException} and ShedLock skips the run: the lease, if it was granted, expires after
 * {@code lockAtMostFor}. A lease is not a lock: a task that outlives {@code lockAtMostFor} runs on
 * while another node may start it; write through a fenced store with {@link #fencingToken()} where
 * that matters.
 *
 * <p>This class is threadsafe.
 */
public final class LeaseholdLockProvider implements ExtensibleLockProvider {
  /** The purpose ShedLock's locks are leases of unless another is given. */
  public static final String DEFAULT_PURPOSE = "shedlock";

  private static final Logger log = LoggerFactory.getLogger(LeaseholdLockProvider.class);
  /**
   * The locks each thread took through any provider and holds, innermost last: what
   * {@link #fencingToken()} reads. A lock stays on the list of the thread that took it, also when
   * it is extended or unlocked from another (ShedLock's KeepAliveLockProvider extends from its own).
   */
  private static final ThreadLocal<Deque<LeaseLock>> HELD = ThreadLocal.withInitial(ConcurrentLinkedDeque::new);
  /** At most how many times a TTL below the port's minimum is doubled on the way to one it accepts. */
  private static final int MAX_DOUBLINGS = 32;

  private final DistributedLeasePort port;
  private final String purpose;
  private final LongSupplier monotonicNanos;
  private final AtomicLong operations = new AtomicLong();

  /** Locks as leases of {@link #DEFAULT_PURPOSE}. */
  public LeaseholdLockProvider(DistributedLeasePort port) {
    this(port, DEFAULT_PURPOSE);
  }

  /**
   * Locks as leases of {@code purpose} ({@code [a-z0-9][a-z0-9-]{0,63}}).
   *
   * @throws IllegalArgumentException if {@code purpose} is malformed
   */
  public LeaseholdLockProvider(DistributedLeasePort port, String purpose) {
    this(port, purpose, System::nanoTime);
  }

  LeaseholdLockProvider(DistributedLeasePort port, String purpose, LongSupplier monotonicNanos) {
    this.port = Objects.requireNonNull(port, "port");
    // Validated now, by the request's own rules, rather than at the first lock.
    LeaseRequest.once(purpose, ResourceDigests.sha256(""), Duration.ofSeconds(1), port.newAttempt("check"));
    this.purpose = purpose;
    this.monotonicNanos = monotonicNanos;
  }

  public String purpose() {
    return purpose;
  }

  /**
   * The fencing token of the innermost lock that this thread holds through a Leasehold provider
   * (the task ShedLock runs under it), or empty outside one or when the port issues no tokens.
   */
  public static OptionalLong fencingToken() {
    LeaseLock lock = HELD.get().peekLast();
    return lock == null ? OptionalLong.empty() : lock.handle.fencingToken();
  }

  /**
   * @throws LockException if whether the lease was granted cannot be told, or Redis cannot be
   *     reached; ShedLock then skips the run
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration configuration) {
    Duration ttl = configuration.getLockAtMostFor();
    LeaseAttempt attempt = port.newAttempt("shedlock-" + operations.incrementAndGet());
    LeaseRequest request = LeaseRequest.once(purpose, ResourceDigests.sha256(configuration.getName()), ttl, attempt);
    long lockedAt = monotonicNanos.getAsLong();
    AcquireOutcome outcome = port.tryAcquire(request);
    if (outcome instanceof AcquireOutcome.Indeterminate) {
      // The same attempt again: the server says whether the first one was granted.
      outcome = port.tryAcquire(request);
    }
    LeaseHandle handle;
    if (outcome instanceof AcquireOutcome.Acquired a) {
      handle = a.handle();
    } else if (outcome instanceof AcquireOutcome.ReplayedSameOperation r) {
      handle = r.handle();
    } else if (outcome instanceof AcquireOutcome.Contended) {
      return Optional.empty();
    } else {
      throw new LockException("lock " + configuration.getName() + " not taken: " + outcome);
    }
    return Optional.of(new LeaseLock(configuration.getName(), handle,
        lockedAt + configuration.getLockAtLeastFor().toNanos(), HELD.get()));
  }

  /** One lock: a lease handle and the instant before which unlock keeps it. Threadsafe. */
  private final class LeaseLock implements SimpleLock {
    private final String name;
    private final LeaseHandle handle;
    private final long keepUntilNanos;
    /** The held locks of the thread that took the lock. */
    private final Deque<LeaseLock> takerHeld;
    private final AtomicBoolean ended = new AtomicBoolean();

    LeaseLock(String name, LeaseHandle handle, long keepUntilNanos, Deque<LeaseLock> takerHeld) {
      this.name = name;
      this.handle = handle;
      this.keepUntilNanos = keepUntilNanos;
      this.takerHeld = takerHeld;
      takerHeld.addLast(this);
    }

    @Override
    public void unlock() {
      if (!end()) {
        throw new IllegalStateException("lock " + name + " was already unlocked or extended");
      }
      long left = keepUntilNanos - monotonicNanos.getAsLong();
      if (left > 0) {
        // Whole milliseconds, rounded up: the lease must not end before lockAtLeastFor has passed.
        RenewOutcome kept = handle.renew(acceptedTtl(Duration.ofMillis((left + 999_999) / 1_000_000)));
        if (!(kept instanceof RenewOutcome.Renewed)) {
          // Nothing left to keep (lost), or unknown: the lease ends by its TTL at the latest.
          log.debug("lock {} not kept until lockAtLeastFor passed: {}", name, kept);
        }
        return;
      }
      ReleaseOutcome released = handle.release();
      if (!(released instanceof ReleaseOutcome.Released)) {
        log.debug("lock {} not released: {}", name, released);
      }
    }

    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
      if (!end()) {
        throw new IllegalStateException("lock " + name + " was already unlocked or extended");
      }
      long now = monotonicNanos.getAsLong();
      RenewOutcome renewed = handle.renew(lockAtMostFor);
      if (!(renewed instanceof RenewOutcome.Renewed)) {
        log.debug("lock {} not extended: {}", name, renewed);
        return Optional.empty();
      }
      return Optional.of(new LeaseLock(name, handle, now + lockAtLeastFor.toNanos(), takerHeld));
    }

    /** Ends this lock object: true for the one call that ended it; off its taker's list of held locks. */
    private boolean end() {
      if (!ended.compareAndSet(false, true)) {
        return false;
      }
      takerHeld.removeLastOccurrence(this);
      return true;
    }

    /**
     * {@code ttl}, doubled until the port accepts it (a TTL must be above its drift budget): the
     * lease is kept a little longer than lockAtLeastFor rather than shorter.
     */
    private Duration acceptedTtl(Duration ttl) {
      Duration t = ttl.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : ttl;
      for (int i = 0; i < MAX_DOUBLINGS; i++) {
        try {
          handle.checkTtl(t);
          return t;
        } catch (IllegalArgumentException tooShort) {
          t = t.multipliedBy(2);
        }
      }
      return t;
    }
  }
}
