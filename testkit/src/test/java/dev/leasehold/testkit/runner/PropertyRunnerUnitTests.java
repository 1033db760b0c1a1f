package dev.leasehold.testkit.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner tested on a toy: a set with a planted bug, checked against a TreeSet model. */
class PropertyRunnerUnitTests {
  /** A small set of ints; with {@code planted}, removing from a set of exactly 3 also drops the largest. */
  static final class ToySet {
    private final List<Integer> items = new ArrayList<>();
    private final boolean planted;

    ToySet(boolean planted) {
      this.planted = planted;
    }

    void add(int v) {
      if (!items.contains(v)) {
        items.add(v);
      }
    }

    void remove(int v) {
      if (items.contains(v)) {
        if (planted && items.size() == 3) {
          items.remove(Integer.valueOf(items.stream().mapToInt(Integer::intValue).max().orElseThrow()));
        }
        items.remove(Integer.valueOf(v));
      }
    }

    TreeSet<Integer> contents() {
      return new TreeSet<>(items);
    }
  }

  record Toy(ToySet set, TreeSet<Integer> model) {}

  static final class ToyMachine implements StateMachine<Toy> {
    private final boolean planted;

    ToyMachine(boolean planted) {
      this.planted = planted;
    }

    @Override
    public Toy setUp(long seed) {
      return new Toy(new ToySet(planted), new TreeSet<>());
    }

    @Override
    public List<ActionKind<Toy>> actions() {
      return List.of(action("add", 3, (t, v) -> {
        t.set().add(v);
        t.model().add(v);
        return "ok";
      }), action("remove", 2, (t, v) -> {
        boolean had = t.model().remove(v);
        t.set().remove(v);
        return had ? "removed" : "absent";
      }));
    }

    @Override
    public void checkInvariants(Toy t) {
      PropertyViolation.check(t.set().contents().equals(t.model()), "SameContents",
          t.set().contents() + " != model " + t.model());
    }

    @Override
    public List<String> expectedOutcomes() {
      return List.of("add:ok", "remove:removed", "remove:absent");
    }

    interface Body {
      String run(Toy t, int v);
    }

    private static ActionKind<Toy> action(String name, int weight, Body body) {
      return new ActionKind<>() {
        public String name() {
          return name;
        }

        public int weight() {
          return weight;
        }

        public List<Param> params() {
          return List.of(new Param("v", 0, 9));
        }

        public boolean enabled(Toy t, long[] args) {
          return true;
        }

        public String run(Toy t, long[] args) {
          return body.run(t, (int) args[0]);
        }
      };
    }
  }

  @Test
  void findsAndShrinksThePlantedBugToTheMinimalChain() {
    PropertyRunner<Toy> runner = new PropertyRunner<>(new ToyMachine(true));
    PropertyRunner.Report report = runner.run(PropertyRunner.Config.of(42, 500, 30));

    PropertyRunner.Failure failure = report.failure().orElseThrow(() -> new AssertionError("planted bug not found"));
    assertEquals("SameContents", failure.violation().property());
    List<Step> shrunk = failure.shrunk();
    // Three distinct adds then one remove of a present value is the shortest failing chain.
    assertEquals(4, shrunk.size(), () -> "not minimal: " + shrunk);
    assertEquals(3, shrunk.stream().filter(s -> s.action().equals("add")).map(s -> s.arg(0)).distinct().count());
    assertEquals("remove", shrunk.get(3).action());
    assertTrue(shrunk.stream().allMatch(s -> s.arg(0) <= 2), () -> "parameters not simplified: " + shrunk);
    assertTrue(failure.original().size() >= shrunk.size());
  }

  @Test
  void theSameSeedGivesTheSameResult() {
    PropertyRunner.Failure a = new PropertyRunner<>(new ToyMachine(true)).printTo(s -> {})
        .run(PropertyRunner.Config.of(7, 500, 30)).failure().orElseThrow();
    PropertyRunner.Failure b = new PropertyRunner<>(new ToyMachine(true)).printTo(s -> {})
        .run(PropertyRunner.Config.of(7, 500, 30)).failure().orElseThrow();
    assertEquals(a.chainIndex(), b.chainIndex());
    assertEquals(a.original(), b.original());
    assertEquals(a.shrunk(), b.shrunk());
  }

  @Test
  void aCorrectSetPassesAndTheStatisticsCountEverything() {
    PropertyRunner<Toy> runner = new PropertyRunner<>(new ToyMachine(false));
    PropertyRunner.Report report = runner.run(PropertyRunner.Config.of(1, 200, 20));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
    Stats stats = report.stats();
    assertEquals(200, stats.chains());
    assertEquals(stats.steps(), stats.outcomes().values().stream().mapToLong(Long::longValue).sum());
    assertEquals(List.of(), stats.unseen(new ToyMachine(false).expectedOutcomes()));
    assertTrue(stats.markdown("toy", new ToyMachine(false).expectedOutcomes()).contains("| remove:absent |"));
  }

  @Test
  void aSavedChainReplaysToTheSameFailure(@TempDir Path dir) {
    PropertyRunner<Toy> runner = new PropertyRunner<>(new ToyMachine(true)).printTo(s -> {});
    PropertyRunner.Failure failure = runner.run(PropertyRunner.Config.of(3, 500, 30)).failure().orElseThrow();
    Path file = dir.resolve("toy.chain");
    ChainFile.write(file, failure.chainSeed(), runner.renderSteps(failure.shrunk()), failure.violation().getMessage());

    PropertyRunner.ChainResult replayed = runner.replay(file);
    assertTrue(replayed.failed());
    assertEquals("SameContents", replayed.violation().property());
    assertEquals(failure.shrunk(), replayed.executed());
    assertTrue(Files.exists(file));
  }

  @Test
  void aStepsWhosePreconditionFailsIsSkippedOnReplay() {
    StateMachine<int[]> machine = new StateMachine<>() {
      public int[] setUp(long seed) {
        return new int[1];
      }

      public List<ActionKind<int[]>> actions() {
        return List.of(new ActionKind<>() {
          public String name() {
            return "dec";
          }

          public int weight() {
            return 1;
          }

          public List<Param> params() {
            return List.of();
          }

          public boolean enabled(int[] s, long[] args) {
            return s[0] > 0;
          }

          public String run(int[] s, long[] args) {
            s[0]--;
            return "ok";
          }
        });
      }

      public void checkInvariants(int[] s) {}
    };
    PropertyRunner.ChainResult r = new PropertyRunner<>(machine).replay(1, List.of(new Step("dec", new long[0])), new Stats());
    assertEquals(List.of(), r.executed());
  }

  /**
   * A clock: {@code wait} and {@code nap} both let time pass; the planted bug shows once 60 ms
   * have passed. Its rewrites merge two adjacent waits and write a nap as a wait, as the black-box
   * lane's merge ticks and write idle pauses as ticks.
   */
  static final class ClockMachine implements StateMachine<long[]> {
    private final boolean rewrites;

    ClockMachine(boolean rewrites) {
      this.rewrites = rewrites;
    }

    @Override
    public long[] setUp(long seed) {
      return new long[1];
    }

    @Override
    public List<ActionKind<long[]>> actions() {
      return List.of(passing("wait"), passing("nap"));
    }

    private static ActionKind<long[]> passing(String name) {
      return new ActionKind<>() {
        public String name() {
          return name;
        }

        public int weight() {
          return 1;
        }

        public List<Param> params() {
          return List.of(new Param("ms", 1, 40));
        }

        public boolean enabled(long[] clock, long[] args) {
          return true;
        }

        public String run(long[] clock, long[] args) {
          clock[0] += args[0];
          return "ok";
        }
      };
    }

    @Override
    public void checkInvariants(long[] clock) {
      PropertyViolation.check(clock[0] < 60, "Early", "60 ms passed: " + clock[0]);
    }

    @Override
    public List<List<Step>> rewrites(List<Step> chain) {
      if (!rewrites) {
        return List.of();
      }
      List<List<Step>> out = new ArrayList<>();
      for (int i = 0; i + 1 < chain.size(); i++) {
        if (chain.get(i).action().equals("wait") && chain.get(i + 1).action().equals("wait")) {
          List<Step> merged = new ArrayList<>(chain.subList(0, i));
          merged.add(new Step("wait", new long[] {chain.get(i).arg(0) + chain.get(i + 1).arg(0)}));
          merged.addAll(chain.subList(i + 2, chain.size()));
          out.add(merged);
        }
      }
      for (int i = 0; i < chain.size(); i++) {
        if (chain.get(i).action().equals("nap")) {
          List<Step> asWait = new ArrayList<>(chain);
          asWait.set(i, new Step("wait", chain.get(i).args()));
          out.add(asWait);
        }
      }
      return out;
    }
  }

  @Test
  void shrinkingAppliesTheMachinesRewrites_untilTheChainIsOneWaitOfTheTimeThatMatters() {
    List<Step> shrunk = new PropertyRunner<>(new ClockMachine(true)).printTo(s -> {})
        .run(PropertyRunner.Config.of(3, 50, 12)).failure().orElseThrow().shrunk();
    assertEquals(List.of(new Step("wait", new long[] {60})), shrunk);
    // Without rewrites the same run leaves two steps: no single step of at most 40 ms fails.
    List<Step> unrewritten = new PropertyRunner<>(new ClockMachine(false)).printTo(s -> {})
        .run(PropertyRunner.Config.of(3, 50, 12)).failure().orElseThrow().shrunk();
    assertEquals(2, unrewritten.size(), () -> "" + unrewritten);
  }
}
