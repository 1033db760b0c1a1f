package dev.leasehold.testkit.lease;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.testkit.twin.Outcome;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.ToIntFunction;

/**
 * Normalises the port's sealed outcome records into {@link Outcome} (Java 17 has no pattern
 * switch, so this is a chain of instanceof tests, complete over each sealed interface).
 *
 * <p>This class is stateless.
 */
final class Outcomes {
  private Outcomes() {}

  static Outcome of(AcquireOutcome out, ToIntFunction<dev.leasehold.lease.LeaseHandle> handleId) {
    if (out instanceof AcquireOutcome.Acquired x) {
      return new Outcome("Acquired", "", 0, handleId.applyAsInt(x.handle()));
    }
    if (out instanceof AcquireOutcome.ReplayedSameOperation x) {
      return new Outcome("ReplayedSameOperation", "", 0, handleId.applyAsInt(x.handle()));
    }
    if (out instanceof AcquireOutcome.Contended x) {
      return Outcome.timed("Contended", x.retryAfter().toNanos());
    }
    if (out instanceof AcquireOutcome.OwnerOperationConflict) {
      return Outcome.of("OwnerOperationConflict");
    }
    if (out instanceof AcquireOutcome.Unavailable) {
      return Outcome.of("Unavailable");
    }
    if (out instanceof AcquireOutcome.Overloaded x) {
      return Outcome.timed("Overloaded", x.retryAfter().toNanos());
    }
    return Outcome.of(((AcquireOutcome.Indeterminate) out).getClass().getSimpleName());
  }

  /**
   * What the adapter answered a renewal sent without waiting, once its batch's call ended: its
   * outcome, the exception it failed with, or {@code NoReply} for a reply never completed (no
   * outcome the twin allows).
   */
  static Outcome replied(CompletableFuture<RenewOutcome> reply) {
    if (!reply.isDone()) {
      return Outcome.of("NoReply");
    }
    try {
      return of(reply.join());
    } catch (CompletionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return Outcome.of(cause.getClass().getSimpleName());
    }
  }

  static Outcome of(RenewOutcome out) {
    if (out instanceof RenewOutcome.Renewed x) {
      return Outcome.timed("Renewed", x.validity().toNanos());
    }
    if (out instanceof RenewOutcome.NotActive x) {
      return Outcome.of("NotActive", x.state().name());
    }
    if (out instanceof RenewOutcome.Overloaded x) {
      return Outcome.timed("Overloaded", x.retryAfter().toNanos());
    }
    return Outcome.of(out.getClass().getSimpleName());
  }

  static Outcome of(ReleaseOutcome out) {
    if (out instanceof ReleaseOutcome.NotActive x) {
      return Outcome.of("NotActive", x.state().name());
    }
    if (out instanceof ReleaseOutcome.Overloaded x) {
      return Outcome.timed("Overloaded", x.retryAfter().toNanos());
    }
    return Outcome.of(out.getClass().getSimpleName());
  }

  static Outcome of(InspectOutcome out, boolean exactTokens) {
    if (out instanceof InspectOutcome.Held x) {
      String token = exactTokens ? (x.fencingToken().isPresent() ? Long.toString(x.fencingToken().getAsLong()) : "none") : "?";
      return new Outcome("Held", "mine=" + x.holderIsThisAttempt() + ", token=" + token, x.remaining().toNanos(),
          Outcome.NO_HANDLE);
    }
    return Outcome.of(out.getClass().getSimpleName());
  }
}
