package dev.leasehold.testkit.blackbox;

import dev.leasehold.testkit.runner.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which chain to save for a violation: one that shows it again when replayed, at least
 * {@link #NEEDED} times in {@link #TRIES}. Shrinking lowers TTLs and ticks to the smallest values
 * that still failed once, so the shrunk chain may sit on the edge of a race; the chains shrinking
 * kept before it have wider times and are further from that edge. The shrunk chain is tried first,
 * then up to {@link #STEPS_BACK} chains back along the path to the original, and the first that
 * replays reliably is saved; if none does, the one that replayed most often is, and the report
 * says how often.
 *
 * <p>This class is stateless.
 */
final class ReplayMargin {
  static final int TRIES = 10;
  static final int NEEDED = 9;
  /** Chains tried before the shrunk one, evenly back along the path, the original the last. */
  static final int STEPS_BACK = 5;

  private ReplayMargin() {}

  /**
   * The chain to save and how often it showed its violation in {@code tries} replays.
   *
   * @param reliable whether it showed at least {@link #NEEDED} times in {@link #TRIES}
   */
  record Choice(List<Step> steps, int shown, int tries, boolean reliable) {
    String summary() {
      return "replayed its violation " + shown + " times in " + tries + (reliable ? ""
          : ", the most of the chains tried along its shrinking: not reliable (fewer than " + NEEDED + " in " + TRIES + ")");
    }
  }

  /**
   * @param path the chains shrinking kept, the original first and the shrunk last
   * @param showsOnce replays a chain once: whether it showed the violation
   */
  static Choice choose(List<List<Step>> path, Predicate<List<Step>> showsOnce) {
    if (path.isEmpty()) {
      throw new IllegalArgumentException("no chain to choose from");
    }
    Choice best = null;
    for (int index : candidates(path.size())) {
      List<Step> chain = path.get(index);
      int shown = 0;
      int tries = 0;
      // Stops as soon as the chain cannot reach NEEDED any more.
      while (tries < TRIES && tries - shown <= TRIES - NEEDED) {
        tries++;
        if (showsOnce.test(chain)) {
          shown++;
        }
      }
      if (shown >= NEEDED) {
        return new Choice(chain, shown, tries, true);
      }
      if (best == null || (long) shown * best.tries() > (long) best.shown() * tries) {
        best = new Choice(chain, shown, tries, false);
      }
    }
    return best;
  }

  /** The path's indexes to try: its last, then up to STEPS_BACK evenly back to its first. */
  static List<Integer> candidates(int size) {
    List<Integer> indexes = new ArrayList<>(List.of(size - 1));
    int back = Math.min(STEPS_BACK, size - 1);
    for (int k = back - 1; k >= 0; k--) {
      indexes.add((int) ((long) k * (size - 1) / back));
    }
    return indexes;
  }
}
