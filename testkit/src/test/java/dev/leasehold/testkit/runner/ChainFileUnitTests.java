package dev.leasehold.testkit.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A chain file keeps its seed, its steps and, when given, the property it was saved for. */
class ChainFileUnitTests {
  @TempDir
  Path dir;

  @Test
  void theSavedProperty_isReadBack_andIsNoStep() {
    Path file = dir.resolve("a.chain");
    ChainFile.write(file, 42, Optional.of("MutualExclusion"), List.of("tick(ms=5)", "release(client=0)"), "two\nlines");
    ChainFile read = ChainFile.read(file);
    assertEquals(42, read.seed());
    assertEquals(Optional.of("MutualExclusion"), read.property());
    assertEquals(List.of("tick", "release"), read.steps().stream().map(Step::action).toList());
    assertEquals(List.of("tick(ms=5)", "release(client=0)"), ChainFile.renderedSteps(file));
  }

  @Test
  void aFileWithoutAProperty_namesNone() {
    Path file = dir.resolve("b.chain");
    ChainFile.write(file, 7, List.of("tick(ms=5)"), "hand-written");
    assertEquals(Optional.empty(), ChainFile.read(file).property());
    assertEquals(1, ChainFile.read(file).steps().size());
  }
}
