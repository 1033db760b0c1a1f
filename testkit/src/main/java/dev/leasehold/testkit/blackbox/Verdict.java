package dev.leasehold.testkit.blackbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a black-box run found for one library: for each property, a violation with its shrunk
 * chain, a pass with how often it was tested, or that the library does not promise it.
 *
 * <p>This record is immutable.
 */
public record Verdict(String library, LockLibrary.Traits traits, long chains, long steps,
    Map<BlackBoxProperty, Finding> findings, Map<String, Long> outcomes) {
  public Verdict {
    findings = Map.copyOf(findings);
    outcomes = Map.copyOf(outcomes);
  }

  public Finding finding(BlackBoxProperty property) {
    return findings.get(property);
  }

  /** Whether every promised property held. */
  public boolean conforms() {
    return findings.values().stream().noneMatch(f -> f instanceof Finding.Violated);
  }

  /** What the run says about one property. */
  public sealed interface Finding {
    /**
     * Broken: {@code message} from the shrunk chain, written to {@code chainFile}; without a chain
     * file when the violation was met while shrinking a chain that broke another property.
     */
    record Violated(String message, List<String> steps, Optional<Path> chainFile) implements Finding {
      public Violated {
        steps = List.copyOf(steps);
      }
    }

    /** Held in every chain; its precondition was met {@code reached} times. */
    record Held(long reached) implements Finding {}

    /** The library does not promise it (see {@link LockLibrary.Traits}). */
    record NotPromised() implements Finding {}
  }
}
