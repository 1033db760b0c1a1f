package dev.leasehold.bench.scale;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson 4.7 {@code RLock} with its defaults (connection pools, and a watchdog that renews held
 * locks in batches), except the watchdog timeout, which is the kept leases' TTL so that both
 * libraries renew on the same cadence. A Redisson lock belongs to the thread that took it, so each
 * scenario releases on the thread that acquired.
 *
 * <p>This class is threadsafe.
 */
final class RedissonLibrary implements ScaleLibrary {
  private final Duration watchdogTimeout;

  RedissonLibrary(Duration watchdogTimeout) {
    this.watchdogTimeout = watchdogTimeout;
  }

  @Override
  public String name() {
    return "Redisson";
  }

  @Override
  public Client open(List<String> servers, boolean cluster, int maxHeld) {
    Config config = new Config();
    config.setLockWatchdogTimeout(watchdogTimeout.toMillis());
    if (cluster) {
      config.useClusterServers().addNodeAddress(servers.toArray(String[]::new));
    } else {
      config.useSingleServer().setAddress(servers.get(0));
    }
    return new RedissonLocks(Redisson.create(config));
  }

  private record RedissonLocks(RedissonClient redisson) implements Client {
    @Override
    public Held acquire(String resource, Duration ttl, Duration wait) throws InterruptedException {
      RLock lock = redisson.getLock(resource);
      if (!lock.tryLock(wait.toMillis(), ttl.toMillis(), TimeUnit.MILLISECONDS)) {
        return null;
      }
      return lock::unlock;
    }

    @Override
    public Held keep(String resource, Duration ttl) {
      RLock lock = redisson.getLock(resource);
      // Without a lease time Redisson's watchdog keeps the lock, renewing it every timeout / 3.
      if (!lock.tryLock()) {
        throw new IllegalStateException("keep: " + resource + " is held");
      }
      return lock::unlock;
    }

    @Override
    public long renewals() {
      return -1;
    }

    @Override
    public long[] drainRenewalLateness() {
      return new long[0];
    }

    @Override
    public void close() {
      redisson.shutdown();
    }
  }
}
