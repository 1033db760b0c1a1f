package dev.leasehold.spec.tlc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Checks a configuration once more without its reductions: no {@code VIEW}, no {@code SYMMETRY},
 * and time bounded instead ({@code now <= ticks}, added to its {@code CONSTRAINT}). A view or a
 * symmetry that merges states whose futures differ hides whatever happens only in the futures it
 * dropped; run without them, TLC sees every state within the bound. So a verdict that differs
 * between the two runs of one configuration is a reduction that hid a state: every expected
 * failure must fail on the same property both ways, and every passing configuration must pass
 * both ways.
 *
 * <p>This class is stateless.
 */
public final class Unreduced {
  private Unreduced() {}

  /**
   * One configuration's verdict without its reductions, time bounded, and with them ({@code reduced}:
   * empty where that run belongs to another check, as a passing configuration's does).
   *
   * @param expected "PASS" or the property that must be violated, both ways
   */
  public record Pair(String config, String expected, Optional<ModelCheck.Result> reduced, int ticks,
      ModelCheck.Result unreduced) {}

  /**
   * The time bound of an expected failure's unreduced run: the time its reduced counterexample
   * reaches, at most {@code ticks}. That behaviour is one of the unreduced run's (a view or a
   * symmetry only merges states, the counterexample TLC prints is a behaviour of the spec), so the
   * bound admits it, and every state that the reductions may have merged away up to that time is
   * explored. A higher bound would only explore states later than the violation, at a cost that
   * grows several-fold with each tick.
   */
  static int ticks(ModelCheck.Result reduced, int ticks) {
    int reached = reduced.output().trace().stream().map(s -> s.vars().get("now")).filter(v -> v != null && v.matches("\\d+"))
        .mapToInt(Integer::parseInt).max().orElse(ticks);
    return Math.min(reached, ticks);
  }

  /**
   * How long the unreduced run of an expected failure will take, judged by its reduced run's
   * states (it has several times as many): one of 5,000 states or more takes tens of seconds,
   * where the optimizing compiler halves the time (measured: 26 s against 57 s for a run of
   * 260,000 states), while the short ones take two or three seconds, mostly starting up.
   */
  private static Tlc.Length length(ModelCheck.Result reduced) {
    return reduced.output().distinct() >= 5_000 ? Tlc.Length.LONG : Tlc.Length.SHORT;
  }

  /** Whether the configuration {@code cfg} names a view or a symmetry: without either, there is nothing to check. */
  public static boolean reduces(Path cfg) {
    try {
      return Files.readAllLines(cfg).stream().map(String::trim).anyMatch(t -> t.startsWith("VIEW") || t.startsWith("SYMMETRY"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The module of the unreduced variant of {@code base}: it adds only the time bound. */
  static String module(String name, String base, int ticks) {
    return "---- MODULE " + name + " ----\nEXTENDS " + base + "\n"
        + "TimeBound == now <= " + ticks + "   \\* The bound that replaces the view's relative time.\n====\n";
  }

  /** The configuration {@code cfg} without its VIEW and SYMMETRY lines and with the time bound added to its CONSTRAINT. */
  static String cfg(String cfg) {
    StringBuilder b = new StringBuilder();
    boolean constrained = false;
    for (String line : cfg.lines().toList()) {
      String t = line.trim();
      if (t.startsWith("VIEW") || t.startsWith("SYMMETRY")) {
        continue;
      }
      if (t.startsWith("CONSTRAINT")) {
        line = line + " TimeBound";
        constrained = true;
      }
      b.append(line).append('\n');
    }
    if (!constrained) {
      b.append("CONSTRAINT TimeBound\n");
    }
    return b.toString();
  }

  /**
   * Checks the configuration {@code cfg} (any folder) without reductions, expecting {@code
   * expected} as it does: its variant is written to {@code workDir}, which must hold every module
   * the configuration's module extends.
   */
  public static ModelCheck.Result check(Path cfg, String expected, int ticks, Tlc.Length length, String workers,
      Path workDir, Path outDir) {
    String base = cfg.getFileName().toString().replace(".cfg", "");
    String name = base + "_unreduced";
    try {
      Files.writeString(workDir.resolve(name + ".tla"), module(name, base, ticks));
      Files.writeString(workDir.resolve(name + ".cfg"), cfg(Files.readString(cfg)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ModelCheck.check(workDir.resolve(name + ".cfg"), expected, length, workers, outDir);
  }

  /**
   * The expected failures ({@code mustFail}: must-fail configurations of {@code tlaDir} and the
   * breakers' checks, whose configurations are in {@code workDir}), each checked again without
   * reductions, time bounded as {@link #ticks} says, {@code parallel} at a time with one worker each (those with no view and no
   * symmetry, such as the liveness configurations, have nothing to check and are left out).
   */
  public static List<Pair> failures(Path tlaDir, List<ModelCheck.Result> mustFail, List<PropertyBreakers.Check> breakers,
      int ticks, int parallel, Path workDir, Path outDir) {
    ModelCheck.copyModules(tlaDir, workDir);
    List<Callable<Pair>> tasks = new ArrayList<>();
    for (ModelCheck.Result r : mustFail) {
      if (!reduces(tlaDir.resolve(r.module() + ".cfg"))) {
        continue;
      }
      int bound = ticks(r, ticks);
      tasks.add(() -> new Pair(r.module(), r.expected(), Optional.of(r), bound,
          check(tlaDir.resolve(r.module() + ".cfg"), r.expected(), bound, length(r), "1", workDir, outDir)));
    }
    for (PropertyBreakers.Check c : breakers) {
      if (c.result() != null && reduces(workDir.resolve(c.result().module() + ".cfg"))) {
        int bound = ticks(c.result(), ticks);
        tasks.add(() -> new Pair(c.result().module(), c.property(), Optional.of(c.result()), bound,
            check(workDir.resolve(c.result().module() + ".cfg"), c.property(), bound, length(c.result()), "1", workDir,
                outDir)));
      }
    }
    return ModelCheck.inParallel(tasks, parallel);
  }
}
