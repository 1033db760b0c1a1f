package dev.leasehold.testkit.blackbox;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One client of a lock library, as the black-box lane drives it: one hold per resource at a time.
 * The kit never asks a client to acquire a resource it still holds (it releases first, even a grant
 * that may have expired), so reentrancy never comes up.
 *
 * <p>A method that throws tells the kit the outcome is unknown (the call may or may not have
 * changed the server); a method that returns tells it what happened.
 *
 * <p>Implementations need not be threadsafe: the kit calls one method at a time.
 */
public interface LockClient extends AutoCloseable {
  /** One attempt, without waiting: a grant for {@code ttl} or a refusal. */
  Grant tryAcquire(String resource, Duration ttl) throws Exception;

  /**
   * Extends the hold to {@code ttl} from now; {@code false} when the library says the hold is gone.
   * Called only when {@link LockLibrary.Traits#renews()}.
   */
  default boolean renew(String resource, Duration ttl) throws Exception {
    throw new UnsupportedOperationException("this library does not renew by call");
  }

  /** Releases the hold; {@code false} when the library says there was nothing of ours to release. */
  boolean release(String resource) throws Exception;

  /**
   * What the client believes without asking the server: how long its hold on {@code resource}
   * stays valid, or empty when it believes it holds nothing. Called only when
   * {@link LockLibrary.Traits#clientValidity()}.
   */
  default Optional<Duration> belief(String resource) {
    throw new UnsupportedOperationException("this library keeps no client-side validity");
  }

  /**
   * The owner identity this client's hold of {@code resource} puts on the server, as
   * {@link LockLibrary#read} reports it; empty when the client cannot tell. The kit compares it and
   * never prints it.
   */
  Optional<String> holderId(String resource);

  /** The outcome of {@link #tryAcquire}. */
  sealed interface Grant {
    /** Granted for {@code ttl} (the TTL the library set, which may differ from the one asked for). */
    record Acquired(Duration ttl, OptionalLong token) implements Grant {
      public static Acquired of(Duration ttl) {
        return new Acquired(ttl, OptionalLong.empty());
      }
    }

    /** Not granted (someone else holds it, or the request was refused before it ran); the call changed nothing. */
    record NotAcquired() implements Grant {}
  }
}
