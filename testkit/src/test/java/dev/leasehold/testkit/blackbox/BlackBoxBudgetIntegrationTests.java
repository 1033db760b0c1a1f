package dev.leasehold.testkit.blackbox;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.blackbox.ToyLock.Flaw;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The default budget finds each planted defect class on every one of five seeds, with its property:
 * a release that deletes whatever holds the key (saying released, or saying not held), a release
 * that checks and then deletes in a second round trip, and a validity counted from the reply.
 */
class BlackBoxBudgetIntegrationTests {
  record Planted(Flaw flaw, BlackBoxProperty property) {}

  static final List<Planted> PLANTED = List.of(
      new Planted(Flaw.UNLOCK_WITHOUT_COMPARE, BlackBoxProperty.MutualExclusion),
      new Planted(Flaw.UNLOCK_WITHOUT_COMPARE_SAYS_NOT_HELD, BlackBoxProperty.CertaintyIsHonest),
      new Planted(Flaw.CHECK_THEN_DEL, BlackBoxProperty.MutualExclusion),
      new Planted(Flaw.VALIDITY_FROM_REPLY, BlackBoxProperty.ValidityWithinServerLease));
  static final int SEEDS = 5;

  @Test
  void eachPlantedDefect_isFoundWithinTheDefaultBudget_onEverySeed() throws Exception {
    // The defects run side by side, each on its own server: a chain mostly waits in real time, and
    // load can only hide a defect (every judgement is on evidence), never show one that is not there.
    ExecutorService pool = Executors.newFixedThreadPool(PLANTED.size());
    Map<Planted, Future<List<OptionalInt>>> runs = new LinkedHashMap<>();
    try {
      for (Planted planted : PLANTED) {
        runs.put(planted, pool.submit(() -> {
          List<OptionalInt> found = new ArrayList<>();
          for (int seed = 1; seed <= SEEDS; seed++) {
            found.add(BlackBoxConformance.of(new ToyLock(planted.flaw())).seed(seed).printTo(s -> {})
                .chainsToFind(planted.property()));
          }
          return found;
        }));
      }
      StringBuilder table = new StringBuilder("chains to find each planted defect, seeds 1 to " + SEEDS + ":\n");
      boolean all = true;
      for (Map.Entry<Planted, Future<List<OptionalInt>>> run : runs.entrySet()) {
        List<OptionalInt> found = run.getValue().get();
        table.append(run.getKey().flaw()).append(" (").append(run.getKey().property()).append("):");
        for (OptionalInt n : found) {
          table.append(' ').append(n.isPresent() ? Integer.toString(n.getAsInt()) : "not found");
          all &= n.isPresent();
        }
        table.append('\n');
      }
      System.out.print(table);
      assertTrue(all, table::toString);
    } finally {
      pool.shutdownNow();
    }
  }
}
