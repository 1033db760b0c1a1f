package dev.leasehold.peers;

import dev.leasehold.integration.LeaseholdLockRegistry;
import dev.leasehold.integration.LeaseholdLockRegistry.LeaseholdLock;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.testkit.blackbox.LockClient;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.blackbox.ServerView;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Leasehold's Spring Integration lock registry ({@link LeaseholdLockRegistry}), driven as
 * {@link SpringRegistryPort} drives {@code RedisLockRegistry}: one registry per client,
 * {@code tryLock(0, ttl)}, {@code renewLock(key, ttl)}, and an unlock that throws
 * {@link ConcurrentModificationException} when the lease had gone is "not released". The grant's
 * token is the lock's {@link LeaseholdLock#fencingToken()}.
 *
 * <p>This class is threadsafe.
 */
public record LeaseholdRegistryPort() implements LockLibrary {
  @Override public String name() {
    return "leasehold-lockregistry";
  }

  @Override public Traits traits() {
    return new Traits(true, true, false, false);
  }

  @Override public String key(String resource) {
    return LeaseholdPort.keyOfResource(LeaseholdLockRegistry.DEFAULT_PURPOSE, resource);
  }

  @Override public ServerLock read(ServerView redis, String key) {
    return ServerLock.ofStringKey(redis, key);
  }

  @Override public LockClient connect(Endpoint endpoint) {
    RedisLeases leases = LeaseholdPort.connect(endpoint);
    AttemptWatch port = new AttemptWatch(leases.port());
    LeaseholdLockRegistry registry = new LeaseholdLockRegistry(port);
    // Unlock by a thread that holds nothing is refused by the registry; the port says "not ours" itself.
    Set<String> held = new HashSet<>();
    return new LockClient() {
      @Override public Grant tryAcquire(String resource, Duration ttl) throws InterruptedException {
        LeaseholdLock lock = registry.obtain(resource);
        if (!lock.tryLock(Duration.ZERO, ttl)) {
          return new Grant.NotAcquired();
        }
        held.add(resource);
        return new Grant.Acquired(ttl, lock.fencingToken());
      }

      @Override public boolean renew(String resource, Duration ttl) {
        try {
          registry.renewLock(resource, ttl);
          return true;
        } catch (IllegalStateException notRenewed) {
          return false;
        }
      }

      @Override public boolean release(String resource) {
        if (!held.remove(resource)) {
          return false;
        }
        try {
          registry.obtain(resource).unlock();
          return true;
        } catch (ConcurrentModificationException gone) {
          return false;
        }
      }

      @Override public Optional<String> holderId(String resource) {
        return port.lastOwnership();
      }

      @Override public void close() {
        leases.close();
      }
    };
  }
}
