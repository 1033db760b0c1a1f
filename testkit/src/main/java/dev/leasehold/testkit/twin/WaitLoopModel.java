package dev.leasehold.testkit.twin;

import java.util.List;

/**
 * The wait loop of RedisLeaseAdapter.tryAcquire, which the spec leaves out (a retry there is just
 * another Replay): sends until an outcome is final or the wait is used up, checking each sleep the
 * adapter took against the jitter it may choose and letting the twin's time pass by it.
 *
 * <p>This class is not threadsafe.
 */
final class WaitLoopModel {
  private final ModelTime time;
  private final CallModel calls;
  private final boolean exact;
  private final long contention;

  WaitLoopModel(ModelTime time, CallModel calls, boolean exact, long contention) {
    this.time = time;
    this.calls = calls;
    this.exact = exact;
    this.contention = contention;
  }

  /** Tries attempt {@code a} for up to {@code waitNanos}; what went wrong with the sleeps goes to {@code problems}. */
  Outcome run(int a, long ttlMs, long waitNanos, List<LeaseModel.Sleep> sleeps, List<String> problems) {
    long deadline = time.cnow + waitNanos;
    int used = 0;
    boolean earlierTryAmbiguous = false;
    Outcome out;
    while (true) {
      out = honest(calls.acquire(a, ttlMs), earlierTryAmbiguous);
      earlierTryAmbiguous |= out.variant().equals("Indeterminate");
      Long pause = retryPause(out);
      if (waitNanos == 0 || pause == null) {
        break;
      }
      long left = deadline - time.cnow;
      if (left <= 0) {
        break;
      }
      if (used >= sleeps.size()) {
        problems.add("the wait loop should have slept after " + out + " with " + left / 1_000 + " us left");
        return out;
      }
      LeaseModel.Sleep s = sleeps.get(used++);
      String wrong = PauseBounds.problem(s.requested(), pause, left);
      if (wrong != null) {
        problems.add(wrong);
      }
      if (exact) {
        // What the pause took: as asked, or up to the next tick in a chain on the spec's grid (a
        // sleep may end late, never early: the simulated chains have no release signal).
        long took = s.trueAfter() - time.now;
        if (took < s.requested()) {
          problems.add("a pause of " + s.requested() + " ns took " + took + " ns");
        }
        time.tick(took);
      } else {
        time.sync(s.trueAfter(), Math.max(time.cnow, s.trueAfter() - time.lag));
      }
      if (time.cnow - deadline >= 0) {
        return out;
      }
    }
    if (used < sleeps.size()) {
      problems.add("the wait loop slept " + (sleeps.size() - used) + " more time(s) than it should");
    }
    return out;
  }

  /**
   * An earlier try of this call may have been applied: a later unsent or refused try does not make
   * the call certain (RedisLeaseAdapter.honest).
   */
  private static Outcome honest(Outcome out, boolean earlierTryAmbiguous) {
    if (earlierTryAmbiguous && (out.variant().equals("Unavailable") || out.variant().equals("Overloaded"))) {
      return Outcome.of("Indeterminate");
    }
    return out;
  }

  /** RedisLeaseAdapter.retryPause: how long to pause before the next try, or null when the outcome is final. */
  private Long retryPause(Outcome out) {
    return switch (out.variant()) {
      case "Contended", "Overloaded" -> out.value();
      case "Unavailable", "Indeterminate" -> contention;
      default -> null;
    };
  }
}
