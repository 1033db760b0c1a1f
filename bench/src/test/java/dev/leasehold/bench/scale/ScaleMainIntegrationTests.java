package dev.leasehold.bench.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The scale run's quick size end to end, on a real server and cluster, both libraries: every
 * scenario row is there, none is a run that did nothing (no handoffs, no renew commands, no
 * operations), and every chart the report links is written.
 */
class ScaleMainIntegrationTests {
  static final Path DIR = Path.of("target", "scale-smoke");

  @Test
  void theQuickRun_writesEveryRowAndChart() throws Exception {
    ScaleMain.main(new String[] {"--size=quick", "--report=" + DIR});
    String report = Files.readString(DIR.resolve("scale-report.md"));
    // quick: waiters 1 and 10, leases 10 and 100, 1 and 100 resources per thread on two topologies;
    // each size once per library; 30 leases through a stalled primary (Leasehold only)
    List<List<String>> handoffs = rows(report, "Handoff");
    assertEquals(4, handoffs.size());
    handoffs.forEach(r -> assertTrue(number(r.get(2)) > 0, "no handoffs: " + r));
    List<List<String>> held = rows(report, "Held leases");
    assertEquals(4, held.size());
    held.forEach(r -> assertTrue(number(r.get(3)) > 0, "no renew commands: " + r));
    List<List<String>> spread = rows(report, "Spread");
    assertEquals(8, spread.size());
    spread.forEach(r -> assertTrue(number(r.get(3)) > 0, "no operations: " + r));
    Matcher chart = Pattern.compile("!\\[[^]]*]\\(([^)]+\\.svg)\\)").matcher(report);
    int charts = 0;
    while (chart.find()) {
      charts++;
      assertTrue(Files.readString(DIR.resolve(chart.group(1))).startsWith("<svg"), chart.group(1));
    }
    // Five for handoff, three for held leases (heap per lease is drawn from 1,000 leases on, which
    // the quick size does not reach), two for spread.
    assertEquals(10, charts);
    assertFalse(report.contains("NaN"));
    // The stalled primary: nothing reported for the healthy leases, each stopped one exactly once.
    String stalled = Arrays.stream(report.split("\n## ")).filter(s -> s.startsWith("One stalled")).findFirst().orElseThrow();
    assertTrue(stalled.contains("| other primaries: leases reported lost | 0.00 | met |"), stalled);
    assertTrue(stalled.contains("| stopped primary: leases reported never or twice | 0.00 | met |"), stalled);
  }

  /** The cells of the rows of a section's tables that name a library. */
  private static List<List<String>> rows(String report, String section) {
    String body = Arrays.stream(report.split("\n## ")).filter(s -> s.startsWith(section)).findFirst().orElseThrow();
    return body.lines().filter(l -> l.startsWith("| "))
        .map(l -> Arrays.stream(l.substring(1, l.length() - 1).split("\\|")).map(String::trim).toList())
        .filter(cells -> cells.contains("Leasehold") || cells.contains("Redisson")).toList();
  }

  private static double number(String cell) {
    return Double.parseDouble(cell.replace(",", ""));
  }
}
