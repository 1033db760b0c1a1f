package dev.leasehold.testkit.runner;

import java.util.List;
import java.util.SplittableRandom;

/**
 * A kind of action of a state machine: how often it is chosen, its parameters, its precondition
 * and what it does.
 *
 * @param <S> the state of one chain (the system under test and its model)
 */
public interface ActionKind<S> {
  String name();

  /** Relative weight among the enabled actions; 0 never generates it (replay still runs it). */
  int weight();

  List<Param> params();

  /**
   * Whether the step may run in {@code state}. Checked at generation and again at replay, so a
   * chain that lost earlier steps while shrinking simply skips steps that no longer make sense.
   */
  boolean enabled(S state, long[] args);

  /** Generates parameter values; uniform in each {@link Param}'s range unless overridden. */
  default long[] generate(S state, SplittableRandom random) {
    List<Param> params = params();
    long[] args = new long[params.size()];
    for (int i = 0; i < args.length; i++) {
      Param p = params.get(i);
      args[i] = p.min() == p.max() ? p.min() : random.nextLong(p.min(), p.max() + 1);
    }
    return args;
  }

  /**
   * Runs the step and returns the label of the outcome variant it saw (for statistics).
   *
   * @throws PropertyViolation when a property fails during the step
   */
  String run(S state, long[] args) throws Exception;
}
