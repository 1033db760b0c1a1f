package dev.leasehold.integration;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration lock registry whose locks are Leasehold leases, in place of
 * {@code RedisLockRegistry}: {@code obtain(key)} gives the registry's one lock for that key (a
 * {@code String}), the lease of {@link #purpose()} and {@code ResourceDigests.sha256(key)}.
 *
 * <ul>
 *   <li>The threads of one registry queue on a local {@link ReentrantLock} first, so a lock is
 *       reentrant for the thread that holds it, and only the thread that holds it may unlock it
 *       ({@link IllegalStateException} for any other).
 *   <li>{@code lock()} waits until the lease is granted; {@code tryLock(time, unit)} waits up to
 *       {@code time} through the port's wait loop (a release by another holder ends a pause early).
 *       A lease whose acquire reply was lost is asked for again with the same attempt, which the
 *       server recognises, once at least and then until the wait is over. A server that cannot be
 *       reached, or whose answer is still unknown when the wait is over, fails the call with
 *       {@link CannotAcquireLockException}.
 *   <li>A hold lasts the registry's TTL unless {@link #renewLock} renews it. An unlock that finds
 *       the lease gone (it expired first) throws {@link ConcurrentModificationException}, as
 *       {@code RedisLockRegistry} does: the work it guarded may have overlapped another holder's.
 *       {@link LeaseholdLock#fencingToken()} is the token to write with, so that a fenced store
 *       refuses such a stale holder.
 * </ul>
 *
 * <p>This class is threadsafe.
 */
public final class LeaseholdLockRegistry
    implements ExpirableLockRegistry<LeaseholdLockRegistry.LeaseholdLock>, RenewableLockRegistry<LeaseholdLockRegistry.LeaseholdLock> {
  /** The purpose the locks are leases of unless another is given. */
  public static final String DEFAULT_PURPOSE = "lock-registry";
  /** How long a hold lasts unless renewed, as RedisLockRegistry's default expiry. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(60);

  /** A lock of this registry: a {@link DistributedLock} whose hold is a lease. */
  public interface LeaseholdLock extends DistributedLock {
    /** The fencing token of the hold, if the calling thread holds this lock and the port issues tokens. */
    OptionalLong fencingToken();
  }

  private final DistributedLeasePort port;
  private final String purpose;
  private final Duration ttl;
  private final LongSupplier millis;
  private final ConcurrentHashMap<String, KeyLock> locks = new ConcurrentHashMap<>();
  private final AtomicLong operations = new AtomicLong();

  /** Locks of {@link #DEFAULT_PURPOSE}, held for {@link #DEFAULT_TTL}. */
  public LeaseholdLockRegistry(DistributedLeasePort port) {
    this(port, DEFAULT_PURPOSE, DEFAULT_TTL);
  }

  /**
   * Locks of {@code purpose} ({@code [a-z0-9][a-z0-9-]{0,63}}), each hold lasting {@code ttl} unless renewed.
   *
   * @throws IllegalArgumentException if {@code purpose} or {@code ttl} is malformed
   */
  public LeaseholdLockRegistry(DistributedLeasePort port, String purpose, Duration ttl) {
    this(port, purpose, ttl, System::currentTimeMillis);
  }

  LeaseholdLockRegistry(DistributedLeasePort port, String purpose, Duration ttl, LongSupplier millis) {
    this.port = Objects.requireNonNull(port, "port");
    // Validated now, by the request's own rules, rather than at the first lock.
    LeaseRequest.once(purpose, ResourceDigests.sha256(""), ttl, port.newAttempt("check"));
    this.purpose = purpose;
    this.ttl = ttl;
    this.millis = millis;
  }

  public String purpose() {
    return purpose;
  }

  /**
   * The registry's one lock for {@code lockKey}.
   *
   * @throws IllegalArgumentException if {@code lockKey} is not a {@code String}
   */
  @Override
  public LeaseholdLock obtain(Object lockKey) {
    if (!(lockKey instanceof String key)) {
      throw new IllegalArgumentException("a lock key must be a String, not " + (lockKey == null ? "null" : lockKey.getClass().getName()));
    }
    return locks.computeIfAbsent(key, KeyLock::new);
  }

  /** Forgets the locks that nobody holds and nobody used in the last {@code age} ms. */
  @Override
  public void expireUnusedOlderThan(long age) {
    long now = millis.getAsLong();
    locks.values().removeIf(lock -> !lock.local.isLocked() && now - lock.lastUsed > age);
  }

  /**
   * Renews the calling thread's hold of {@code lockKey} for the TTL it was taken (or last renewed) with.
   *
   * @throws IllegalStateException if the calling thread does not hold the lock, or the lease was not renewed
   */
  @Override
  public void renewLock(Object lockKey) {
    KeyLock lock = heldByCaller(lockKey);
    lock.renew(lock.holdTtl);
  }

  /**
   * Renews the calling thread's hold of {@code lockKey} for {@code ttl} from now; later renewals without a TTL use it too.
   *
   * @throws IllegalStateException if the calling thread does not hold the lock, or the lease was not renewed
   */
  @Override
  public void renewLock(Object lockKey, Duration ttl) {
    heldByCaller(lockKey).renew(ttl);
  }

  private KeyLock heldByCaller(Object lockKey) {
    KeyLock lock = locks.get(String.valueOf(lockKey));
    if (lock == null || !lock.local.isHeldByCurrentThread()) {
      throw new IllegalStateException("the calling thread does not hold lock " + lockKey);
    }
    return lock;
  }

  /** The lock of one key: a local reentrant lock for this registry's threads and, while held, a lease. */
  private final class KeyLock implements LeaseholdLock {
    private final String key;
    private final String digest;
    private final ReentrantLock local = new ReentrantLock();
    /** The hold's lease and TTL; written and read by the holding thread only. */
    private LeaseHandle handle;
    private Duration holdTtl;
    private volatile long lastUsed;

    KeyLock(String key) {
      this.key = key;
      this.digest = ResourceDigests.sha256(key);
      this.lastUsed = millis.getAsLong();
    }

    @Override
    public void lock() {
      lock(ttl);
    }

    @Override
    public void lock(Duration leaseTtl) {
      local.lock();
      boolean interrupted = false;
      try {
        while (!holdsLease()) {
          try {
            acquire(leaseTtl, LeaseRequest.MAX_WAIT_TIMEOUT.toNanos());
          } catch (InterruptedException e) {
            // lock() is not interruptible: keep waiting, and leave the flag set for the caller.
            interrupted = true;
          }
        }
      } catch (RuntimeException | Error e) {
        local.unlock();
        throw e;
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
      local.lockInterruptibly();
      try {
        while (!holdsLease()) {
          acquire(ttl, LeaseRequest.MAX_WAIT_TIMEOUT.toNanos());
        }
      } catch (InterruptedException | RuntimeException | Error e) {
        local.unlock();
        throw e;
      }
    }

    @Override
    public boolean tryLock() {
      try {
        return tryLock(Duration.ZERO, ttl);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
      return tryLock(Duration.ofNanos(unit.toNanos(Math.max(0, time))), ttl);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTtl) throws InterruptedException {
      long deadline = System.nanoTime() + waitTime.toNanos();
      if (!local.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS)) {
        return false;
      }
      try {
        if (!holdsLease() && !acquire(leaseTtl, Math.max(0, deadline - System.nanoTime()))) {
          local.unlock();
          return false;
        }
        return true;
      } catch (InterruptedException | RuntimeException | Error e) {
        local.unlock();
        throw e;
      }
    }

    /** Whether this thread already holds the lease: a reentrant lock's inner hold. */
    private boolean holdsLease() {
      return handle != null;
    }

    /**
     * Asks for the lease, waiting up to {@code waitNanos} for its holder to go; true once granted.
     * An unknown outcome is asked again with the same attempt, once at least and then until the
     * wait is over: a server that stops answering must not hold the caller past its wait.
     *
     * @throws CannotAcquireLockException if the outcome is still unknown when the wait is over
     */
    private boolean acquire(Duration leaseTtl, long waitNanos) throws InterruptedException {
      LeaseAttempt attempt = port.newAttempt("lock-" + operations.incrementAndGet());
      long deadline = System.nanoTime() + waitNanos;
      boolean replayed = false;
      while (true) {
        long left = Math.max(0, deadline - System.nanoTime());
        Duration wait = Duration.ofNanos(Math.min(left, LeaseRequest.MAX_WAIT_TIMEOUT.toNanos()));
        AcquireOutcome outcome = port.tryAcquire(new LeaseRequest(purpose, digest, wait, leaseTtl, attempt));
        LeaseHandle granted = outcome instanceof AcquireOutcome.Acquired a ? a.handle()
            : outcome instanceof AcquireOutcome.ReplayedSameOperation r ? r.handle() : null;
        if (granted != null) {
          handle = granted;
          holdTtl = leaseTtl;
          lastUsed = millis.getAsLong();
          return true;
        }
        if (Thread.interrupted()) {
          throw new InterruptedException("interrupted while waiting for lock " + key);
        }
        if (outcome instanceof AcquireOutcome.Indeterminate) {
          if (replayed && deadline - System.nanoTime() <= 0) {
            throw new CannotAcquireLockException("lock " + key + ": whether it was taken is still unknown when the wait"
                + " is over (" + outcome + "); the lease, if it was granted, ends by its TTL");
          }
          replayed = true;
          continue;
        }
        if (!(outcome instanceof AcquireOutcome.Contended) && !(outcome instanceof AcquireOutcome.Overloaded)) {
          throw new CannotAcquireLockException("lock " + key + " not taken: " + outcome);
        }
        if (deadline - System.nanoTime() <= 0) {
          return false;
        }
        if (outcome instanceof AcquireOutcome.Overloaded o) {
          // The port sends the next try at once; an overloaded server is given the pause it asked for.
          TimeUnit.NANOSECONDS.sleep(Math.min(o.retryAfter().toNanos(), Math.max(0, deadline - System.nanoTime())));
        }
      }
    }

    /**
     * Ends the calling thread's hold; the lease is released when its outermost hold ends.
     *
     * @throws IllegalStateException if the calling thread does not hold this lock
     * @throws ConcurrentModificationException if the lease had expired, or was lost, before the unlock
     */
    @Override
    public void unlock() {
      if (!local.isHeldByCurrentThread()) {
        throw new IllegalStateException("the calling thread does not hold lock " + key);
      }
      if (local.getHoldCount() > 1) {
        local.unlock();
        return;
      }
      LeaseHandle held = handle;
      handle = null;
      lastUsed = millis.getAsLong();
      try {
        ReleaseOutcome released = held.release();
        if (released instanceof ReleaseOutcome.Released) {
          return;
        }
        if (released instanceof ReleaseOutcome.Indeterminate || released instanceof ReleaseOutcome.Unavailable
            || released instanceof ReleaseOutcome.Overloaded) {
          throw new IllegalStateException("lock " + key + ": the release was not confirmed (" + released
              + "); the lease ends by its TTL at the latest");
        }
        throw new ConcurrentModificationException("lock " + key + " had expired before it was unlocked (" + released
            + "): the work it guarded may have overlapped another holder's");
      } finally {
        local.unlock();
      }
    }

    void renew(Duration leaseTtl) {
      RenewOutcome renewed = handle.renew(leaseTtl);
      if (!(renewed instanceof RenewOutcome.Renewed)) {
        throw new IllegalStateException("lock " + key + " not renewed: " + renewed);
      }
      holdTtl = leaseTtl;
    }

    @Override
    public OptionalLong fencingToken() {
      return local.isHeldByCurrentThread() && handle != null ? handle.fencingToken() : OptionalLong.empty();
    }

    @Override
    public Condition newCondition() {
      throw new UnsupportedOperationException("a lease has no conditions");
    }

    @Override
    public String toString() {
      return "LeaseholdLock[" + key + (local.isLocked() ? ", held" : "") + "]";
    }
  }
}
