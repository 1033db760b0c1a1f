package dev.leasehold.spec.tlc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Shows that every property a passing configuration lists can fail there: for each one, the
 * configuration is checked again with only that property and with the defect that {@code
 * Breakers.tla} names for it (its {@code BREAK} lines), and TLC must report that property violated.
 * It is checked first with one thread ({@code Lane}), whose behaviours are those of the
 * configuration in which the other threads stay idle, so a violation there is one of the
 * configuration too; only if none shows up there (or the defect needs two), with all its threads.
 *
 * <p>This class is stateless.
 */
public final class PropertyBreakers {
  private static final Pattern BREAK = Pattern.compile(
      "BREAK\\s+(\\w+)(\\s+WITH\\s+TWO\\s+THREADS)?(?:\\s+IN\\s+([\\w, ]+?))?\\s*:\\s*(\\w+\\s*<-\\s*\\w+(?:\\s*,\\s*\\w+\\s*<-\\s*\\w+)*)");


  /** How every configuration binds the threads (MCBase.tla), and how a one-thread check rebinds them. */
  private static final String LANES = "Lane <- MCLane";
  private static final String ONE_LANE = "Lane <- OneLane";

  private PropertyBreakers() {}

  /**
   * A defect that breaks {@code property}: the operator overrides ({@code Op <- Replacement}) to add
   * to a configuration's {@code CONSTANTS}; {@code configs} names the configurations it is meant for,
   * empty for every configuration that no other line names; {@code twoThreads}: it breaks the
   * property only with two threads (the line says {@code WITH TWO THREADS}), so no check with one is
   * tried.
   */
  public record Breaker(String property, Set<String> configs, List<String> overrides, boolean twoThreads) {
    /**
     * The thread counts to try, in order, as {@code oneThread} flags: one thread first (the
     * shorter check), then two if one did not break the property; only two for a defect that
     * needs them.
     */
    public List<Boolean> tries() {
      return twoThreads ? List.of(false) : List.of(true, false);
    }
  }

  /**
   * One property of one passing configuration, the defect that was to break it, and what TLC found
   * ({@code oneThread}: in the configuration with one thread).
   */
  public record Check(String config, String property, Optional<Breaker> breaker, ModelCheck.Result result,
      boolean oneThread) {
    /** Whether the property was shown to fail in the configuration. */
    public boolean ok() {
      return breaker.isPresent() && result != null && result.ok();
    }
  }

  /** The BREAK lines of {@code Breakers.tla}. */
  public static List<Breaker> parse(String breakersModule) {
    List<Breaker> list = new ArrayList<>();
    Matcher m = BREAK.matcher(breakersModule);
    while (m.find()) {
      Set<String> configs = m.group(3) == null ? Set.of()
          : Set.copyOf(Arrays.stream(m.group(3).split(",")).map(String::trim).toList());
      List<String> overrides = Arrays.stream(m.group(4).split(","))
          .map(o -> o.trim().replaceAll("\\s*<-\\s*", " <- ")).toList();
      list.add(new Breaker(m.group(1), configs, overrides, m.group(2) != null));
    }
    return list;
  }

  /** The breaker of {@code property} in {@code config}: the one naming the configuration, else the general one. */
  public static Optional<Breaker> find(List<Breaker> breakers, String property, String config) {
    Optional<Breaker> named = breakers.stream()
        .filter(b -> b.property().equals(property) && b.configs().contains(config)).findFirst();
    return named.isPresent() ? named
        : breakers.stream().filter(b -> b.property().equals(property) && b.configs().isEmpty()).findFirst();
  }

  /**
   * The configuration {@code cfg} (the text of {@code <config>.cfg}) with only {@code property}
   * checked, under the keyword that lists it there, with the breaker's overrides and expecting the
   * property to fail. Every other section (the constants, INIT, NEXT, CONSTRAINT, SYMMETRY...) is
   * kept as it is ({@link CfgListing} tells the sections apart). With {@code oneThread}, the
   * threads are bound to {@code OneLane} (one of them, which the derived module defines) instead
   * of {@code MCLane}.
   */
  public static String derivedCfg(String cfg, String property, Breaker breaker, boolean oneThread) {
    List<String> lines = cfg.lines().toList();
    if (oneThread && lines.stream().noneMatch(l -> l.trim().equals(LANES))) {
      throw new IllegalArgumentException("the configuration does not bind " + LANES);
    }
    StringBuilder b = new StringBuilder();
    b.append("\\* ").append(String.join(", ", breaker.overrides())).append(" breaks ").append(property)
        .append(oneThread ? ", with one thread" : "").append('\n');
    b.append("\\* Expected: FAIL:").append(property).append('\n');
    CfgListing listing = CfgListing.of(lines);
    String keyword = listing.keywords().get(property);
    if (keyword == null) {
      throw new IllegalArgumentException(property + " is not listed in the configuration");
    }
    for (int i = 2; i < lines.size(); i++) {
      if (listing.lines().contains(i)) {
        continue;
      }
      String line = lines.get(i);
      String t = line.trim();
      if (t.startsWith("INIT") || t.startsWith("SPECIFICATION")) {
        breaker.overrides().forEach(o -> b.append("    ").append(o).append('\n'));
      }
      b.append(oneThread && t.equals(LANES) ? line.replace(LANES, ONE_LANE) : line).append('\n');
    }
    return b.append(keyword).append('\n').append("    ").append(property).append('\n').toString();
  }

  /**
   * Checks every property each passing configuration of {@code passing} lists (TypeOK aside) with
   * its breaker, {@code parallel} TLC JVMs at a time with one worker each. Scratch modules go to
   * {@code workDir} (a copy of {@code tlaDir}'s modules), raw output to {@code outDir}.
   */
  public static List<Check> run(Path tlaDir, List<String> passing, int parallel, Path workDir, Path outDir) {
    try {
      List<Breaker> breakers = parse(Files.readString(tlaDir.resolve("Breakers.tla")));
      ModelCheck.copyModules(tlaDir, workDir);
      List<Check> planned = new ArrayList<>();
      for (String config : passing) {
        Path cfg = tlaDir.resolve(config + ".cfg");
        for (String property : PropertyNames.listedNames(cfg)) {
          if (property.equals("TypeOK")) {
            continue;
          }
          Optional<Breaker> breaker = find(breakers, property, config);
          planned.add(new Check(config, property, breaker, null, false));
          if (breaker.isEmpty()) {
            continue;
          }
          for (boolean oneThread : breaker.get().tries()) {
            String module = module(config, property, oneThread);
            Files.writeString(workDir.resolve(module + ".tla"), "---- MODULE " + module + " ----\n"
                + "(* Expected: FAIL:" + property + " *)\nEXTENDS " + config + ", Breakers\n"
                + "OneLane == {CHOOSE l \\in MCLane : TRUE}\n====\n");
            Files.writeString(workDir.resolve(module + ".cfg"),
                derivedCfg(Files.readString(cfg), property, breaker.get(), oneThread));
          }
        }
      }
      return check(planned, parallel, workDir, outDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String module(String config, String property, boolean oneThread) {
    return config + "_" + property + (oneThread ? "_1" : "");
  }

  private static List<Check> check(List<Check> planned, int parallel, Path workDir, Path outDir) {
    return ModelCheck.inParallel(planned.stream().<Callable<Check>>map(c -> () -> {
      if (c.breaker().isEmpty()) {
        return c;
      }
      Check tried = null;
      for (boolean oneThread : c.breaker().get().tries()) {
        tried = check(c, oneThread, workDir, outDir);
        if (tried.ok()) {
          break;
        }
      }
      return tried;
    }).toList(), parallel);
  }

  private static Check check(Check c, boolean oneThread, Path workDir, Path outDir) {
    Path cfg = workDir.resolve(module(c.config(), c.property(), oneThread) + ".cfg");
    ModelCheck.Result result = ModelCheck.check(cfg, c.property(), Tlc.Length.SHORT, "1", outDir);
    return new Check(c.config(), c.property(), c.breaker(), result, oneThread);
  }
}
