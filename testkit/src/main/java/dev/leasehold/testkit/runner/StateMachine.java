package dev.leasehold.testkit.runner;

import java.util.List;

/**
 * What {@link PropertyRunner} tests: a fresh state per chain, the actions, and the invariants
 * checked after every step.
 *
 * @param <S> the state of one chain
 */
public interface StateMachine<S> {
  /** A fresh state; {@code seed} makes everything random in it deterministic. */
  S setUp(long seed);

  List<ActionKind<S>> actions();

  /**
   * Checks every invariant; called after every step.
   *
   * @throws PropertyViolation naming the invariant that fails
   */
  void checkInvariants(S state);

  /** Releases what {@link #setUp} opened; called after every chain, failed or not. */
  default void tearDown(S state) {}

  /**
   * Chains that mean nearly the same as {@code chain} and read simpler, for shrinking to try before
   * it removes steps: for example two adjacent waits merged into one, or a pause of a party that
   * holds nothing written as a plain wait. Shrinking keeps one only if it still fails on the same
   * property and is no longer, so a rewrite that changed what mattered is simply not kept.
   */
  default List<List<Step>> rewrites(List<Step> chain) {
    return List.of();
  }

  /** Every outcome label the actions can produce, so the statistics can show what was never seen. */
  default List<String> expectedOutcomes() {
    return List.of();
  }
}
