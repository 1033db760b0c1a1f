package dev.leasehold.testkit.fault;

import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.testkit.sim.LeaseClock;

/**
 * A server for one chain (simulated or a real redis-server) with the operations the faults need
 * that go around the client: restart, SCRIPT FLUSH and a direct read.
 *
 * <p>Implementations are threadsafe.
 */
public interface Backend extends AutoCloseable {
  LeaseClock clock();

  /** The gateway the adapter uses (before fault injection). */
  LeaseGateway gateway();

  /** Reads the lease directly. */
  ServerView view(LeaseKeys keys);

  /** Loses every key and counter (a restart without persistence) and the script cache. */
  void restart();

  /** {@code write} on the lease key, from outside the library; {@code ttlMs} for an overwrite or a retype. */
  void external(External write, LeaseKeys keys, long ttlMs);

  /** SCRIPT FLUSH: the next EVALSHA answers NOSCRIPT and the gateway sends the script's text once. */
  void flushScripts();

  /** The ghost grant log (tokens in grant order) when the server can tell, else null. */
  java.util.List<Long> grantLog();

  /**
   * How far (ns) a direct read or a reply may be off the model's instant; 0 when simulated. On a
   * real server it is measured, not assumed: it may grow from one call to the next, never shrink.
   */
  long slackNanos();

  @Override
  void close();
}
