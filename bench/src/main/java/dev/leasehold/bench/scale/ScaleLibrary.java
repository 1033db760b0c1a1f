package dev.leasehold.bench.scale;

import java.time.Duration;
import java.util.List;

/**
 * What the scale runs need of a lock library, so that one scenario drives Leasehold and Redisson the
 * same way: clients with their own connections, a waiting acquire, a release, and leases kept
 * alive by the library's own watchdog.
 *
 * <p>Implementations are threadsafe.
 */
interface ScaleLibrary {
  /** The name in the report. */
  String name();

  /**
   * A new client with its own connections, as one service instance would have.
   *
   * @param servers the nodes: one standalone server, or the seed nodes of a cluster
   * @param cluster whether {@code servers} are cluster nodes
   * @param maxHeld how many leases the client's watchdog must be able to keep at once
   */
  Client open(List<String> servers, boolean cluster, int maxHeld);

  /** One client. Threadsafe: many threads share it. */
  interface Client extends AutoCloseable {
    /**
     * Acquires {@code resource} for {@code ttl}, waiting up to {@code wait} (zero: one try).
     *
     * @return the held lease, or null when it was not acquired (contended until {@code wait} ran out)
     * @throws InterruptedException if the thread was interrupted while waiting
     */
    Held acquire(String resource, Duration ttl, Duration wait) throws InterruptedException;

    /** Acquires {@code resource} once and lets the library's watchdog keep it until released. */
    Held keep(String resource, Duration ttl);

    /**
     * Renewals the library's watchdog has done for this client so far, or -1 when the library does
     * not say (the report then counts the renew commands the server saw).
     */
    long renewals();

    /**
     * How late each watchdog renewal since the last call was sent, in nanoseconds after the moment
     * it was due; empty when the library does not show when a renewal was due.
     */
    long[] drainRenewalLateness();

    /** Closes the client's connections. */
    @Override
    void close();
  }

  /** One held lease. */
  interface Held {
    /** Releases it; throws if the library says it was not released. */
    void release();
  }
}
