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

  /** Every outcome label the actions can produce, so the statistics can show what was never seen. */
  default List<String> expectedOutcomes() {
    return List.of();
  }
}
