package dev.leasehold.testkit.blackbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.runner.Step;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Which chain the lane saves: the most shrunk one that replays its violation 9 times in 10. */
class ReplayMarginUnitTests {
  static final List<Step> ORIGINAL = List.of(Step.parse("tick(ms=180)"), Step.parse("tick(ms=40)"));
  static final List<Step> MIDDLE = List.of(Step.parse("tick(ms=120)"));
  static final List<Step> SHRUNK = List.of(Step.parse("tick(ms=10)"));
  static final List<List<Step>> PATH = List.of(ORIGINAL, MIDDLE, SHRUNK);

  /** Replays that show the violation at the given rate per chain (every k-th replay misses), counting tries. */
  static final class Replays implements Predicate<List<Step>> {
    final Map<List<Step>, Integer> everyNthMisses;
    final Map<List<Step>, Integer> tries = new HashMap<>();

    Replays(Map<List<Step>, Integer> everyNthMisses) {
      this.everyNthMisses = everyNthMisses;
    }

    @Override
    public boolean test(List<Step> chain) {
      int n = tries.merge(chain, 1, Integer::sum);
      int every = everyNthMisses.get(chain);
      return every == 0 || n % every != 0;
    }
  }

  @Test
  void aShrunkChainThatReplaysEveryTime_isSaved() {
    Replays replays = new Replays(Map.of(ORIGINAL, 0, MIDDLE, 0, SHRUNK, 0));
    ReplayMargin.Choice choice = ReplayMargin.choose(PATH, replays);
    assertEquals(SHRUNK, choice.steps());
    assertTrue(choice.reliable());
    assertEquals(10, choice.shown());
    assertEquals(Map.of(SHRUNK, 10), replays.tries);
  }

  @Test
  void aShrunkChainOnTheEdge_givesWayToTheMostShrunkChainBeforeItThatReplays() {
    // The shrunk chain misses every second replay: it is given up after its second miss.
    Replays replays = new Replays(Map.of(ORIGINAL, 0, MIDDLE, 0, SHRUNK, 2));
    ReplayMargin.Choice choice = ReplayMargin.choose(PATH, replays);
    assertEquals(MIDDLE, choice.steps());
    assertTrue(choice.reliable());
    assertEquals(4, replays.tries.get(SHRUNK));
    assertFalse(replays.tries.containsKey(ORIGINAL));
  }

  @Test
  void whenNoChainReplaysReliably_theOneThatShowedMostIsSaved_andSaidToBeUnreliable() {
    Replays replays = new Replays(Map.of(ORIGINAL, 3, MIDDLE, 2, SHRUNK, 2));
    ReplayMargin.Choice choice = ReplayMargin.choose(PATH, replays);
    assertFalse(choice.reliable());
    assertEquals(ORIGINAL, choice.steps(), "two of three replays beat one of two");
    assertTrue(choice.summary().contains("not reliable"), choice.summary());
  }

  @Test
  void theChainsTried_areTheShrunkOne_thenUpToFiveBackToTheOriginal() {
    assertEquals(List.of(10, 8, 6, 4, 2, 0), ReplayMargin.candidates(11));
    assertEquals(List.of(2, 1, 0), ReplayMargin.candidates(3));
    assertEquals(List.of(0), ReplayMargin.candidates(1));
  }
}
