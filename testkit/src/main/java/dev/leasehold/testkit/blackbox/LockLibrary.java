package dev.leasehold.testkit.blackbox;

import java.time.Duration;

/**
 * The black-box lane's view of a Redis lock library: how to make a client of it, what it promises,
 * and where it keeps a lock on the server. Implement this (and {@link LockClient}) for your library
 * and run {@link BlackBoxConformance}; the guide's "Checking any Redis lock library" page shows a
 * whole port.
 *
 * <p>Implementations must be threadsafe: the kit may make and close clients from any thread.
 */
public interface LockLibrary {
  /** A short name for reports and chain files, e.g. {@code redisson-rlock}. */
  String name();

  /** What the library promises; the kit checks only what is promised. */
  Traits traits();

  /**
   * A new client of the library, with its own connection and its own identity as an owner, that
   * talks to Redis at {@code endpoint}. The endpoint is a fault-injecting proxy: configure the
   * library's command timeout to {@link Endpoint#commandTimeout()} so that a call whose reply is
   * lost returns in bounded time.
   */
  LockClient connect(Endpoint endpoint) throws Exception;

  /** The key that holds the lock on {@code resource} (its holder and its expiry). */
  String key(String resource);

  /**
   * What the library keeps at {@code key} (from {@link #key}), read with the kit's own connection
   * (never through the proxy, never through the library).
   */
  ServerLock read(ServerView redis, String key);

  /** Where a client connects, and the command timeout it should use. */
  record Endpoint(String host, int port, Duration commandTimeout) {
    public String uri() {
      return "redis://" + host + ":" + port;
    }
  }

  /**
   * What a library promises, so that nothing it does not promise is counted against it.
   *
   * @param fenced each grant carries a token, and later grants carry larger ones
   * @param renews a holder can extend its lease by a call ({@link LockClient#renew})
   * @param clientValidity the client can say, without asking the server, until when its hold is
   *     valid ({@link LockClient#belief})
   * @param replays a {@link LockClient#tryAcquire} after one whose outcome was unknown sends the same
   *     attempt again and never makes a second hold (the kit then may replay instead of releasing)
   */
  record Traits(boolean fenced, boolean renews, boolean clientValidity, boolean replays) {
    /** A library that promises none of these (the kit still checks what every lock must do). */
    public static final Traits NONE = new Traits(false, false, false, false);
  }

  /**
   * The server's truth about one lock.
   *
   * @param holder the owner identity the key holds (compared with {@link LockClient#holderId}), or
   *     empty when no one holds it
   * @param pttlMs the key's remaining time to live in ms; meaningful only with a holder
   */
  record ServerLock(java.util.Optional<String> holder, long pttlMs) {
    public static final ServerLock FREE = new ServerLock(java.util.Optional.empty(), -2);

    /** The most common layout: a string at {@code key} whose value is the holder, expiring with the lock. */
    public static ServerLock ofStringKey(ServerView redis, String key) {
      String holder = redis.get(key);
      return holder == null ? FREE : new ServerLock(java.util.Optional.of(holder), redis.pttl(key));
    }

    public boolean heldBy(String id) {
      return holder.isPresent() && holder.get().equals(id);
    }

    /** Deliberately leaves the holder out: it may be a secret owner token. */
    @Override
    public String toString() {
      return holder.isPresent() ? "held (pttl " + pttlMs + " ms)" : "free";
    }
  }
}
