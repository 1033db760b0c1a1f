package dev.leasehold.testkit.blackbox;

import dev.leasehold.testkit.blackbox.Verdict.Finding;
import java.util.List;
import java.util.Map;

/**
 * Renders verdicts as Markdown: library by property, what the steps met (faults and outcomes), and
 * each violation's shrunk chain. Cells say "held in N checks", never a bare pass: a property whose
 * precondition was never met was not tested.
 */
public final class VerdictTable {
  private VerdictTable() {}

  public static String markdown(List<Verdict> verdicts) {
    StringBuilder b = new StringBuilder();
    b.append("| library |");
    for (BlackBoxProperty p : BlackBoxProperty.values()) {
      b.append(' ').append(p.name()).append(" |");
    }
    b.append("\n| --- |");
    b.append(" --- |".repeat(BlackBoxProperty.values().length));
    b.append('\n');
    for (Verdict v : verdicts) {
      b.append("| ").append(v.library()).append(" |");
      for (BlackBoxProperty p : BlackBoxProperty.values()) {
        b.append(' ').append(cell(v.finding(p))).append(" |");
      }
      b.append('\n');
    }
    b.append("\n\"held in N\": N checks met the property's precondition and it held in each; what a check is:\n\n");
    for (BlackBoxProperty p : BlackBoxProperty.values()) {
      b.append("- ").append(p.name()).append(": ").append(p.reach()).append('\n');
    }
    b.append("\nWhat the steps met (outcomes counted over every chain):\n\n");
    b.append("| library | chains | steps | grants | of them replays | renewals | released | lost replies | delayed calls | pauses while holding |\n");
    b.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Verdict v : verdicts) {
      b.append("| ").append(v.library()).append(" | ").append(v.chains()).append(" | ").append(v.steps())
          .append(" | ").append(count(v.outcomes(), "tryAcquire:acquired") + count(v.outcomes(), "replay:acquired")
              + count(v.outcomes(), "delayedAcquire:acquired"))
          .append(" | ").append(count(v.outcomes(), "replay:acquired"))
          .append(" | ").append(count(v.outcomes(), "renew:renewed") + count(v.outcomes(), "delayedRenew:renewed"))
          .append(" | ").append(count(v.outcomes(), "release:released") + count(v.outcomes(), "delayedRelease:released"))
          .append(" | ").append(count(v.outcomes(), "-after-lost-reply"))
          .append(" | ").append(count(v.outcomes(), "-after-delayed-reply"))
          .append(" | ").append(count(v.outcomes(), "pause:paused-holding")).append(" |\n");
    }
    for (Verdict v : verdicts) {
      for (BlackBoxProperty p : BlackBoxProperty.values()) {
        if (v.finding(p) instanceof Finding.Violated violated) {
          b.append("\n**").append(v.library()).append(", ").append(p.name()).append("**: ")
              .append(violated.message()).append('\n');
          if (violated.steps().isEmpty()) {
            b.append("\n(met while shrinking a chain that broke another property; no chain kept)\n");
          } else {
            b.append("\n```\n");
            violated.steps().forEach(s -> b.append(s).append('\n'));
            b.append("```\n");
          }
        }
      }
    }
    return b.toString();
  }

  private static String cell(Finding finding) {
    if (finding instanceof Finding.Violated) {
      return "**violated**";
    }
    if (finding instanceof Finding.Held held) {
      return held.reached() == 0 ? "not reached" : "held in " + held.reached();
    }
    return "not promised";
  }

  /** Outcomes whose label starts with {@code prefix}, or contains it when it starts with '-'. */
  private static long count(Map<String, Long> outcomes, String label) {
    return outcomes.entrySet().stream()
        .filter(e -> label.startsWith("-") ? e.getKey().contains(label) : e.getKey().startsWith(label))
        .mapToLong(Map.Entry::getValue).sum();
  }
}
