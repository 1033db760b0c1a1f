package dev.leasehold.model.names;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.ActionKind;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One name per idea: the action table of spec/README.md (read from the leasehold-spec jar, the
 * files that were model-checked) maps each spec action to the Java method that implements it and
 * the model-test action that drives it. This test keeps the three in step: a renamed or deleted
 * action, method or model action fails it.
 */
class ActionNamesUnitTests {
  private static final Pattern TICKED = Pattern.compile("`([^`]+)`");
  private static final List<String> PACKAGES = List.of("dev.leasehold.lease", "dev.leasehold.redis",
      "dev.leasehold.testkit.fault", "dev.leasehold.testkit.lease", "dev.leasehold.testkit.sim",
      "dev.leasehold.testkit.twin");

  /** One row of the table: spec action, Java column, model-test column. */
  record Row(String spec, String java, String model) {}

  private static List<Row> rows;
  private static String readme;
  private static String leaseTla;

  @BeforeAll
  static void read() throws IOException {
    readme = resource("leasehold/spec/README.md");
    leaseTla = resource("leasehold/spec/tla/Lease.tla");
    rows = new ArrayList<>();
    boolean inTable = false;
    for (String line : readme.split("\\R")) {
      if (line.startsWith("| Action | What it models | Java | Lua | model-test action |")) {
        inTable = true;
      } else if (inTable && !line.startsWith("|")) {
        break;
      } else if (inTable && !line.startsWith("| ---")) {
        String[] cells = line.split("\\|", -1);
        rows.add(new Row(cells[1].trim(), cells[3].trim(), cells[5].trim()));
      }
    }
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = ActionNamesUnitTests.class.getClassLoader().getResourceAsStream(name)) {
      assertNotNull(in, name + " is not on the classpath (leasehold-spec jar)");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<String> ticked(String cell) {
    List<String> out = new ArrayList<>();
    for (Matcher m = TICKED.matcher(cell); m.find(); ) {
      out.add(m.group(1));
    }
    return out;
  }

  /** Every action of Next is in the table; the table's others (stutters such as Inspect) are defined in Lease.tla. */
  @Test
  void theTableListsEveryActionOfNext() {
    Set<String> listed = rows.stream().map(r -> ticked(r.spec()).get(0).replaceFirst("\\(.*", ""))
        .collect(Collectors.toCollection(TreeSet::new));
    String next = leaseTla.substring(leaseTla.indexOf("\nNext =="), leaseTla.indexOf("\nSpec =="));
    Set<String> inNext = new TreeSet<>();
    for (Matcher m = Pattern.compile("\\b([A-Z][A-Za-z]+)(\\(|\\s*$|\\s)").matcher(next); m.find(); ) {
      String name = m.group(1);
      if (leaseTla.contains("\n" + name + " ==") || leaseTla.contains("\n" + name + "(")) {
        inNext.add(name);
      }
    }
    inNext.remove("Next");
    assertTrue(inNext.size() >= 15, "Next parsed: " + inNext);
    Set<String> unlisted = new TreeSet<>(inNext);
    unlisted.removeAll(listed);
    assertEquals(Set.of(), unlisted, "actions of Next missing from the table of spec/README.md");
    Set<String> undefined = listed.stream().filter(a -> !leaseTla.contains("\n" + a + "(") && !leaseTla.contains("\n" + a + " =="))
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(Set.of(), undefined, "actions in the table that Lease.tla does not define");
  }

  @Test
  void everyJavaMethodOfTheTableExists() {
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (Row r : rows) {
      for (String ref : ticked(r.java())) {
        String[] parts = ref.split("\\.");
        if (parts.length != 2) {
          continue;  // a type name such as LeaseAttempt
        }
        checked++;
        if (!methodExists(parts[0], parts[1])) {
          missing.add(r.spec() + " -> " + ref);
        }
      }
    }
    assertTrue(checked >= 15, "Java references checked: " + checked);
    assertEquals(List.of(), missing, "Java methods named in spec/README.md that do not exist");
  }

  @Test
  void modelActionsAndTheTableNameTheSameActions() {
    Set<String> machine = new TreeSet<>();
    for (WorldConfig c : List.of(WorldConfig.simulated(PortFactory.FIXED).withConcurrentSteps(),
        WorldConfig.simulated(PortFactory.FIXED).withRestarts(), WorldConfig.simulated(PortFactory.FIXED).withExternalWrites())) {
      new LeaseMachine(c).actions().stream().map(ActionKind::name).forEach(machine::add);
    }
    Set<String> listed = new TreeSet<>();
    rows.forEach(r -> listed.addAll(ticked(r.model())));
    String outside = readme.substring(readme.indexOf("Model-test actions outside the spec:"));
    listed.addAll(ticked(outside.substring(0, outside.indexOf("\n\n"))));
    assertEquals(machine, listed, "LeaseMachine's actions vs the model-test column of spec/README.md");
  }

  private static boolean methodExists(String simpleClass, String method) {
    for (String p : PACKAGES) {
      try {
        Class<?> c = Class.forName(p + "." + simpleClass);
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
          if (Arrays.stream(k.getDeclaredMethods()).map(Method::getName).anyMatch(method::equals)) {
            return true;
          }
        }
        return Arrays.stream(c.getMethods()).map(Method::getName).anyMatch(method::equals);
      } catch (ClassNotFoundException e) {
        // try the next package
      }
    }
    return false;
  }
}
