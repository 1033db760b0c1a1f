package dev.leasehold.peers;

import dev.leasehold.redis.RedisLeases;
import dev.leasehold.shedlock.LeaseholdLockProvider;
import dev.leasehold.testkit.blackbox.LockClient;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.blackbox.ServerView;

/**
 * Leasehold's ShedLock provider ({@link LeaseholdLockProvider}), driven as {@link ShedLockPort}
 * drives ShedLock's Redis provider ({@link ShedLockClient}). The grant's token is what the task
 * would read, {@link LeaseholdLockProvider#fencingToken()}; the holder is the attempt of the last
 * acquire ({@link AttemptWatch}).
 *
 * <p>This class is threadsafe.
 */
public record LeaseholdShedLockPort() implements LockLibrary {
  @Override public String name() {
    return "leasehold-shedlock";
  }

  @Override public Traits traits() {
    return new Traits(true, true, false, false);
  }

  @Override public String key(String resource) {
    return LeaseholdPort.keyOfResource(LeaseholdLockProvider.DEFAULT_PURPOSE, resource);
  }

  @Override public ServerLock read(ServerView redis, String key) {
    return ServerLock.ofStringKey(redis, key);
  }

  @Override public LockClient connect(Endpoint endpoint) {
    RedisLeases leases = LeaseholdPort.connect(endpoint);
    AttemptWatch port = new AttemptWatch(leases.port());
    return new ShedLockClient(new LeaseholdLockProvider(port), LeaseholdLockProvider::fencingToken,
        lock -> port.lastOwnership(), port::lastGrantReleased, leases::close);
  }
}
