package dev.leasehold.spec.tlc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Model-checks every configuration of a folder with TLC and judges each against the expectation
 * its .cfg states in a comment line: {@code \* Expected: PASS} or {@code \* Expected: FAIL:<property>}
 * (TLC must then report exactly that property, named as the .cfg lists it).
 *
 * <p>This class is stateless and threadsafe; {@link #run} forks one TLC JVM per configuration.
 */
public final class ModelCheck {
  private static final Pattern EXPECTED = Pattern.compile("\\\\\\*\\s*Expected:\\s*(PASS|FAIL:(\\w+))");
  private static final Pattern EXPECTED_IN_MODULE = Pattern.compile("\\(\\*\\s*Expected:\\s*(PASS|FAIL:\\w+)");
  private static final Duration TIMEOUT = Duration.ofMinutes(10);

  private ModelCheck() {}

  /**
   * One configuration and what came out of checking it.
   *
   * @param expected "PASS" or the property that must be violated
   * @param result "PASS", the violated property, "TIMEOUT" or "ERROR(...)"
   */
  public record Result(String module, String expected, String result, TlcOutput output, double seconds) {
    public boolean ok() {
      return expected.equals(result);
    }

    public boolean expectedToPass() {
      return expected.equals("PASS");
    }
  }

  /**
   * Checks each {@code <configs>.cfg} of {@code dir} (a regex over the file name without ".cfg"),
   * raw output in {@code outDir}. The passing configurations, which TLC must explore to the end, run
   * first and one at a time with {@code workers} workers each; the must-fail ones, which stop at
   * their first violation and spend much of their time starting up, run {@code parallel} at a
   * time with one worker each (which also makes TLC's search strictly breadth-first, so each
   * counterexample is a shortest one). The result is in that order, as in the report.
   */
  public static List<Result> run(Path dir, String configs, int parallel, String workers, Path outDir) {
    List<Path> cfgs = configurations(dir, configs);
    if (cfgs.isEmpty()) {
      throw new IllegalArgumentException("no " + configs + ".cfg in " + dir);
    }
    Map<Path, String> expected = new HashMap<>();
    cfgs.forEach(c -> expected.put(c, expectation(c)));
    List<Callable<Result>> passing = new ArrayList<>();
    List<Callable<Result>> failing = new ArrayList<>();
    for (Path cfg : cfgs) {
      String e = expected.get(cfg);
      if (e.equals("PASS")) {
        passing.add(() -> check(cfg, e, Tlc.Length.LONG, workers, outDir));
      } else {
        failing.add(() -> check(cfg, e, Tlc.Length.SHORT, "1", outDir));
      }
    }
    List<Result> results = new ArrayList<>(inParallel(passing, 1));
    results.addAll(inParallel(failing, parallel));
    return results;
  }

  /** What a simulation asks TLC for: how many behaviours, of at most how many steps, from which seed. */
  public record Sampling(long behaviours, int depth, long seed) {}

  /**
   * Samples each {@code <configs>.cfg} of {@code dir} that is expected to pass in TLC's simulation
   * mode, one after another, each with {@code workers} workers: a violation on any sampled
   * behaviour is a result like an exhaustive run's. None selected is an empty list.
   */
  public static List<Result> simulate(Path dir, String configs, Sampling sampling, String workers, Path outDir) {
    List<Result> results = new ArrayList<>();
    for (Path cfg : configurations(dir, configs)) {
      if (!expectation(cfg).equals("PASS")) {
        continue;
      }
      String module = cfg.getFileName().toString().replace(".cfg", "");
      Tlc.Run run = Tlc.check(dir, module, Tlc.Length.LONG, List.of("-tool", "-simulate", "num=" + sampling.behaviours(), "-depth",
          String.valueOf(sampling.depth()), "-seed", String.valueOf(sampling.seed()), "-workers", workers, "-deadlock"),
          outDir.resolve(module + "-simulation.out"), TIMEOUT);
      TlcOutput out = TlcOutput.parse(run.output());
      results.add(new Result(module, "PASS", verdict(run, out, cfg), out, run.seconds()));
    }
    return results;
  }

  /** Runs {@code tasks}, {@code parallel} at a time, and returns their results in order. */
  static <T> List<T> inParallel(List<Callable<T>> tasks, int parallel) {
    ExecutorService pool = Executors.newFixedThreadPool(parallel);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> t : tasks) {
        futures.add(pool.submit(t));
      }
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Copies every module (.tla) of {@code from} into {@code to}, a scratch folder for derived configurations. */
  public static void copyModules(Path from, Path to) {
    try {
      Files.createDirectories(to);
      try (Stream<Path> modules = Files.list(from)) {
        for (Path p : modules.filter(p -> p.toString().endsWith(".tla")).toList()) {
          Files.copy(p, to.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The configurations {@code <configs>.cfg} of {@code dir} (a regex over the file name without ".cfg"), sorted. */
  public static List<Path> configurations(Path dir, String configs) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().matches(configs + "\\.cfg")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The expectation a configuration states; its module's header must state the same, so the two cannot drift. */
  public static String expectation(Path cfg) {
    try {
      Matcher m = EXPECTED.matcher(Files.readString(cfg));
      if (!m.find()) {
        throw new IllegalArgumentException(cfg + " lacks an '\\* Expected: PASS|FAIL:<property>' line");
      }
      Path module = cfg.resolveSibling(cfg.getFileName().toString().replace(".cfg", ".tla"));
      Matcher t = EXPECTED_IN_MODULE.matcher(Files.readString(module));
      if (!t.find() || !t.group(1).equals(m.group(1))) {
        throw new IllegalArgumentException(module + " must state the same 'Expected: " + m.group(1) + "' as its .cfg");
      }
      return m.group(2) == null ? "PASS" : m.group(2);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Checks one configuration: TLC's verdict against {@code expected}, raw output in {@code outDir}. */
  static Result check(Path cfg, String expected, Tlc.Length length, String workers, Path outDir) {
    String module = cfg.getFileName().toString().replace(".cfg", "");
    Tlc.Run run = Tlc.check(cfg.getParent(), module, length, List.of("-tool", "-workers", workers, "-deadlock"),
        outDir.resolve(module + ".out"), TIMEOUT);
    TlcOutput out = TlcOutput.parse(run.output());
    return new Result(module, expected, verdict(run, out, cfg), out, run.seconds());
  }

  /** "PASS", the violated property, "TIMEOUT" or "ERROR(...)". */
  private static String verdict(Tlc.Run run, TlcOutput out, Path cfg) {
    if (run.timedOut()) {
      return "TIMEOUT";
    }
    if (out.violated() != null) {
      return PropertyNames.canonical(out.violated(), cfg, cfg.resolveSibling("Lease.tla"));
    }
    return run.exit() == 0 ? "PASS" : "ERROR(exit " + run.exit() + (out.error() == null ? "" : ": " + out.error()) + ")";
  }
}
