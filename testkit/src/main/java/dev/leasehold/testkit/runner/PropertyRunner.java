package dev.leasehold.testkit.runner;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Our own stateful property runner: generates chains of weighted actions whose preconditions hold,
 * runs each, checks every invariant after every step, shrinks a failing chain (the machine's
 * {@link StateMachine#rewrites} first, then removing actions, then simplifying their parameters),
 * and prints the seed and the shrunk chain.
 * Everything follows from the run seed: the same seed gives the same chains and the same result.
 *
 * <p>This class is not threadsafe; use one runner per thread.
 *
 * @param <S> the state of one chain
 */
public final class PropertyRunner<S> {
  /** Tries to find an enabled action before a chain ends early. */
  private static final int GENERATION_TRIES = 32;

  /**
   * @param seed the run seed; chain i uses a seed derived from it
   * @param chains how many chains to run (stops at the first failure)
   * @param maxLength chains have 1..maxLength steps
   * @param maxShrinkRuns how many replays shrinking may spend
   * @param keepProperty whether a shrunk chain must fail the same property as the original (so
   *     shrinking cannot slip to another bug); a fixture with one planted bug may accept any failure
   */
  public record Config(long seed, int chains, int maxLength, int maxShrinkRuns, boolean keepProperty) {
    public static Config of(long seed, int chains, int maxLength) {
      return new Config(seed, chains, maxLength, 2_000, true);
    }

    public Config anyFailureWhileShrinking() {
      return new Config(seed, chains, maxLength, maxShrinkRuns, false);
    }
  }

  /**
   * A chain that failed, before and after shrinking.
   *
   * @param path every chain shrinking kept, in order: the original first, the shrunk last (a caller
   *     that finds the shrunk chain too close to the edge of failing may step back along it)
   */
  public record Failure(long runSeed, int chainIndex, long chainSeed, List<Step> original, List<Step> shrunk,
      PropertyViolation violation, String rendered, int shrinkRuns, List<List<Step>> path) {
    public Failure {
      path = path.stream().map(List::copyOf).toList();
    }
  }

  /** What a run found. */
  public record Report(int chainsRun, Optional<Failure> failure, Stats stats) {}

  /** What one replay of a chain did. */
  public record ChainResult(List<Step> executed, PropertyViolation violation) {
    public boolean failed() {
      return violation != null;
    }
  }

  private final StateMachine<S> machine;
  private final Map<String, ActionKind<S>> byName = new HashMap<>();
  private Consumer<String> out = System.out::println;

  public PropertyRunner(StateMachine<S> machine) {
    this.machine = machine;
    for (ActionKind<S> a : machine.actions()) {
      if (byName.put(a.name(), a) != null) {
        throw new IllegalArgumentException("two actions named " + a.name());
      }
    }
  }

  /** Where the runner prints failures (System.out by default). */
  public PropertyRunner<S> printTo(Consumer<String> out) {
    this.out = out;
    return this;
  }

  /** The seed of chain {@code index} of a run with {@code runSeed} (SplitMix64 of both). */
  public static long chainSeed(long runSeed, int index) {
    long z = runSeed + 0x9E3779B97F4A7C15L * (index + 1L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  public Report run(Config config) {
    Stats stats = new Stats();
    for (int i = 0; i < config.chains(); i++) {
      long chainSeed = chainSeed(config.seed(), i);
      ChainResult result = generateAndRun(chainSeed, config.maxLength(), stats);
      if (result.failed()) {
        Failure failure = shrink(config, i, chainSeed, result);
        out.accept(failure.rendered());
        return new Report(i + 1, Optional.of(failure), stats);
      }
    }
    return new Report(config.chains(), Optional.empty(), stats);
  }

  /** Generates one chain from {@code chainSeed} and runs it. */
  public ChainResult generateAndRun(long chainSeed, int maxLength, Stats stats) {
    SplittableRandom random = new SplittableRandom(chainSeed);
    int length = 1 + random.nextInt(maxLength);
    List<ActionKind<S>> weighted = machine.actions().stream().filter(a -> a.weight() > 0).toList();
    int total = weighted.stream().mapToInt(ActionKind::weight).sum();
    long start = System.nanoTime();
    S state = machine.setUp(chainSeed);
    List<Step> executed = new ArrayList<>();
    try {
      for (int n = 0; n < length; n++) {
        Step step = pick(state, weighted, total, random);
        if (step == null) {
          break;
        }
        executed.add(step);
        PropertyViolation v = execute(state, step, stats);
        if (v != null) {
          return new ChainResult(executed, v);
        }
      }
      return new ChainResult(executed, null);
    } finally {
      machine.tearDown(state);
      stats.chain(executed.size());
      stats.elapsed(System.nanoTime() - start);
    }
  }

  private Step pick(S state, List<ActionKind<S>> weighted, int total, SplittableRandom random) {
    for (int t = 0; t < GENERATION_TRIES; t++) {
      int r = random.nextInt(total);
      ActionKind<S> chosen = null;
      for (ActionKind<S> a : weighted) {
        r -= a.weight();
        if (r < 0) {
          chosen = a;
          break;
        }
      }
      long[] args = chosen.generate(state, random);
      if (chosen.enabled(state, args)) {
        return new Step(chosen.name(), args);
      }
    }
    return null;
  }

  /** Runs the step and checks the invariants; returns the violation, or null. */
  private PropertyViolation execute(S state, Step step, Stats stats) {
    ActionKind<S> action = byName.get(step.action());
    stats.action(step.action());
    try {
      String outcome = action.run(state, step.args());
      stats.outcome(step.action() + ":" + outcome);
      machine.checkInvariants(state);
      return null;
    } catch (PropertyViolation v) {
      return v;
    } catch (Exception | AssertionError e) {
      // An unexpected exception is a failure too: the system must answer every action.
      return new PropertyViolation("Crash", e.toString() + " at " + firstFrame(e));
    }
  }

  private static String firstFrame(Throwable e) {
    StackTraceElement[] trace = e.getStackTrace();
    return trace.length == 0 ? "?" : trace[0].toString();
  }

  /** Replays a fixed chain; a step whose precondition no longer holds is skipped. */
  public ChainResult replay(long chainSeed, List<Step> steps, Stats stats) {
    long start = System.nanoTime();
    S state = machine.setUp(chainSeed);
    List<Step> executed = new ArrayList<>();
    try {
      for (Step step : steps) {
        ActionKind<S> action = byName.get(step.action());
        if (action == null) {
          throw new IllegalArgumentException("unknown action " + step.action());
        }
        if (!action.enabled(state, step.args())) {
          stats.skipped();
          continue;
        }
        executed.add(step);
        PropertyViolation v = execute(state, step, stats);
        if (v != null) {
          return new ChainResult(executed, v);
        }
      }
      return new ChainResult(executed, null);
    } finally {
      machine.tearDown(state);
      stats.chain(executed.size());
      stats.elapsed(System.nanoTime() - start);
    }
  }

  /** Replays a chain file written by a failing run. */
  public ChainResult replay(Path chainFile) {
    ChainFile file = ChainFile.read(chainFile);
    return replay(file.seed(), file.steps(), new Stats());
  }

  private Failure shrink(Config config, int index, long chainSeed, ChainResult failing) {
    String property = failing.violation().property();
    Stats scratch = new Stats();
    int[] runs = {0};
    List<Step> best = failing.executed();
    PropertyViolation bestViolation = failing.violation();
    List<List<Step>> path = new ArrayList<>(List.of(best));
    Set<List<Step>> rewritesTried = new HashSet<>();
    boolean progress = true;
    while (progress && runs[0] < config.maxShrinkRuns()) {
      progress = false;
      // 1. The machine's rewrites first (cheap, and they make the chain shorter for what follows):
      // each one kept that still fails on the property, until none is.
      for (boolean rewritten = true; rewritten && runs[0] < config.maxShrinkRuns(); ) {
        rewritten = false;
        for (List<Step> candidate : machine.rewrites(List.copyOf(best))) {
          if (runs[0] >= config.maxShrinkRuns()) {
            break;
          }
          if (!rewritesTried.add(candidate)) {
            continue;   // tried already, and it did not fail so
          }
          ChainResult r = tryCandidate(chainSeed, candidate, config.keepProperty() ? property : null, scratch, runs);
          if (r != null && r.executed().size() <= best.size()) {
            best = r.executed();
            bestViolation = r.violation();
            path.add(best);
            rewritten = true;
            progress = true;
            break;
          }
        }
      }
      // 2. Remove actions: big chunks first, then single steps.
      for (int chunk = Math.max(1, best.size() / 2); chunk >= 1 && runs[0] < config.maxShrinkRuns(); chunk /= 2) {
        for (int from = 0; from + chunk <= best.size() && runs[0] < config.maxShrinkRuns(); ) {
          List<Step> candidate = new ArrayList<>(best.subList(0, from));
          candidate.addAll(best.subList(from + chunk, best.size()));
          ChainResult r = tryCandidate(chainSeed, candidate, config.keepProperty() ? property : null, scratch, runs);
          if (r != null) {
            best = r.executed();
            bestViolation = r.violation();
            path.add(best);
            progress = true;
          } else {
            from++;
          }
        }
        if (chunk == 1) {
          break;
        }
      }
      // 3. Simplify parameters toward their minimum.
      for (int s = 0; s < best.size() && runs[0] < config.maxShrinkRuns(); s++) {
        List<Param> params = byName.get(best.get(s).action()).params();
        for (int p = 0; p < params.size(); p++) {
          long min = params.get(p).min();
          boolean improved = true;
          while (improved && s < best.size() && runs[0] < config.maxShrinkRuns()) {
            improved = false;
            long v = best.get(s).arg(p);
            for (long c : new long[] {min, min + (v - min) / 2, v - 1}) {
              if (c >= v || c < min) {
                continue;
              }
              List<Step> candidate = new ArrayList<>(best);
              candidate.set(s, best.get(s).withArg(p, c));
              ChainResult r = tryCandidate(chainSeed, candidate, config.keepProperty() ? property : null, scratch,
                  runs);
              if (r != null && r.executed().size() <= best.size()) {
                best = r.executed();
                bestViolation = r.violation();
                path.add(best);
                improved = true;
                progress = true;
                break;
              }
            }
          }
        }
      }
    }
    String rendered = render(config.seed(), index, chainSeed, failing.executed().size(), best, bestViolation, runs[0]);
    return new Failure(config.seed(), index, chainSeed, failing.executed(), List.copyOf(best), bestViolation, rendered,
        runs[0], path);
  }

  private ChainResult tryCandidate(long chainSeed, List<Step> candidate, String property, Stats scratch, int[] runs) {
    runs[0]++;
    ChainResult r = replay(chainSeed, candidate, scratch);
    return r.failed() && (property == null || r.violation().property().equals(property)) ? r : null;
  }

  /** The chain, one step per line, with parameter names. */
  public List<String> renderSteps(List<Step> steps) {
    return steps.stream().map(s -> s.render(byName.get(s.action()).params())).toList();
  }

  private String render(long runSeed, int index, long chainSeed, int originalLength, List<Step> shrunk,
      PropertyViolation violation, int runs) {
    StringBuilder b = new StringBuilder();
    b.append("PROPERTY FAILED: ").append(violation.getMessage()).append('\n');
    b.append("  run seed ").append(runSeed).append(", chain #").append(index).append(", chain seed ")
        .append(chainSeed).append('\n');
    b.append("  shrunk from ").append(originalLength).append(" to ").append(shrunk.size())
        .append(" steps in ").append(runs).append(" replays:\n");
    for (String line : renderSteps(shrunk)) {
      b.append("    ").append(line).append('\n');
    }
    return b.toString();
  }
}
