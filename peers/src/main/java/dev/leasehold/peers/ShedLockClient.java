package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockClient;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A client of any ShedLock {@link LockProvider}, driven as ShedLock drives it: {@code lockAtMostFor}
 * is the TTL, {@code lockAtLeastFor} zero, renewing is {@code extend} (which ends the old lock object
 * either way). ShedLock's unlock reports nothing, so whether it released is the provider's to say
 * from what it knows of itself.
 *
 * <p>This class is not threadsafe: the kit calls one method at a time.
 */
final class ShedLockClient implements LockClient {
  private final LockProvider provider;
  private final Supplier<OptionalLong> token;
  private final Function<SimpleLock, Optional<String>> holderOf;
  private final Runnable close;
  private final BooleanSupplier unlockReleased;
  private final Map<String, SimpleLock> held = new HashMap<>();

  /**
   * @param token the token of the lock just taken, as the task would read it
   * @param holderOf the owner value a held lock (or null, none) puts on the server
   * @param unlockReleased asked after an unlock: whether it released the lock
   */
  ShedLockClient(LockProvider provider, Supplier<OptionalLong> token, Function<SimpleLock, Optional<String>> holderOf,
      BooleanSupplier unlockReleased, Runnable close) {
    this.provider = provider;
    this.token = token;
    this.holderOf = holderOf;
    this.unlockReleased = unlockReleased;
    this.close = close;
  }

  @Override
  public Grant tryAcquire(String resource, Duration ttl) {
    held.remove(resource);
    Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), resource, ttl, Duration.ZERO));
    if (lock.isEmpty()) {
      return new Grant.NotAcquired();
    }
    held.put(resource, lock.get());
    return new Grant.Acquired(ttl, token.get());
  }

  @Override
  public boolean renew(String resource, Duration ttl) {
    SimpleLock lock = held.remove(resource);
    if (lock == null) {
      return false;   // a failed extend left nothing to extend
    }
    Optional<SimpleLock> extended = lock.extend(ttl, Duration.ZERO);
    extended.ifPresent(l -> held.put(resource, l));
    return extended.isPresent();
  }

  @Override
  public boolean release(String resource) {
    SimpleLock lock = held.remove(resource);
    if (lock == null) {
      return false;
    }
    lock.unlock();
    return unlockReleased.getAsBoolean();
  }

  @Override
  public Optional<String> holderId(String resource) {
    return holderOf.apply(held.get(resource));
  }

  @Override
  public void close() {
    close.run();
  }
}
