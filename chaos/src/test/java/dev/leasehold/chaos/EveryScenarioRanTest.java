package dev.leasehold.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * A chaos scenario must never vanish silently (a method source that comes back short, a class that
 * is no longer found): after every other class of the run, each scenario of {@code scenarios.txt}
 * has a row in the summary. {@code .ci/run} checks the written summary against the same list.
 */
@Order(Integer.MAX_VALUE)
class EveryScenarioRanTest {
  @Test
  void everyListedScenarioLeftASummaryRow() throws IOException {
    Set<String> ran = Summary.rows().stream().map(Summary.Row::scenario).collect(Collectors.toSet());
    List<String> missing = listed().stream().filter(s -> !ran.contains(s)).toList();
    assertEquals(List.of(), missing, "chaos scenarios that did not run (scenarios.txt lists them)");
  }

  static List<String> listed() throws IOException {
    return Files.readAllLines(Path.of("scenarios.txt")).stream()
        .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
  }
}
