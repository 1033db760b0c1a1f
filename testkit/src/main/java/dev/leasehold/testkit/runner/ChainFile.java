package dev.leasehold.testkit.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A saved chain: the chain seed, the property it was saved for (when the lane that saved it judges
 * one property on a replay), and one rendered step per line, with {@code #} comments. Replay it
 * with {@link PropertyRunner#replay}.
 *
 * <p>This record is immutable.
 */
public record ChainFile(long seed, Optional<String> property, List<Step> steps) {
  private static final String SEED = "seed=";
  private static final String PROPERTY = "property=";

  public ChainFile {
    steps = List.copyOf(steps);
  }

  public static void write(Path file, long seed, List<String> renderedSteps, String comment) {
    write(file, seed, Optional.empty(), renderedSteps, comment);
  }

  /** As {@link #write(Path, long, List, String)}, naming the property the chain was saved for. */
  public static void write(Path file, long seed, Optional<String> property, List<String> renderedSteps, String comment) {
    List<String> lines = new ArrayList<>();
    lines.add("# leasehold chain");
    for (String c : comment.split("\n")) {
      lines.add("# " + c);
    }
    lines.add(SEED + seed);
    property.ifPresent(p -> lines.add(PROPERTY + p));
    lines.addAll(renderedSteps);
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.write(file, lines);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static ChainFile read(Path file) {
    long seed = 0;
    Optional<String> property = Optional.empty();
    List<Step> steps = new ArrayList<>();
    for (String s : lines(file)) {
      if (s.startsWith(SEED)) {
        seed = Long.parseLong(s.substring(SEED.length()));
      } else if (s.startsWith(PROPERTY)) {
        property = Optional.of(s.substring(PROPERTY.length()));
      } else {
        steps.add(Step.parse(s));
      }
    }
    return new ChainFile(seed, property, steps);
  }

  /** The steps of a chain file as written, one per line, with their parameter names. */
  public static List<String> renderedSteps(Path file) {
    return lines(file).stream().filter(s -> !s.startsWith(SEED) && !s.startsWith(PROPERTY)).toList();
  }

  /** The lines that are not comments or blank, stripped. */
  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file).stream().map(String::strip).filter(s -> !s.isEmpty() && !s.startsWith("#"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
