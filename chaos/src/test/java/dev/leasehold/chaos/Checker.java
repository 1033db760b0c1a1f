package dev.leasehold.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads a {@link History} and counts what went wrong, one check per spec property, each deciding
 * with the predicate of {@code dev.leasehold.testkit.lease.LeaseInvariants} that every other oracle
 * uses: {@link MutualExclusion} (two ACTIVE at once), {@link ActiveHoldsKey} and
 * {@link ValidityWithinServerLease} (together: ACTIVE past the server lease), {@link FencedEffects}
 * (stale writes, tokens issued twice), {@link CertaintyIsHonest} and {@link StateOutcomeAgreement}.
 * Nothing here looks at the clock: every count follows from the recorded events alone.
 *
 * <p>This class is stateless and threadsafe.
 */
public final class Checker {
  /** The counts of one run. */
  public record Counts(
      int operations,
      int faults,
      int grants,
      int twoActivePairs,
      long twoActiveMaxMs,
      int activePastLease,
      long activePastLeaseMaxMs,
      int effectsAttempted,
      int controlStaleAccepted,
      int fencedStaleAcceptedClaimedFenced,
      int fencedStaleAcceptedClaimedEfficiency,
      int fencedRejected,
      int duplicateTokens,
      int certaintyContradictions,
      int stateOutcomeDisagreements,
      int samples,
      List<String> findings,
      /** "store#seq" of every stale write accepted, for the timeline. */
      Set<String> staleWrites) {

    public int fencedStaleAccepted() {
      return fencedStaleAcceptedClaimedFenced + fencedStaleAcceptedClaimedEfficiency;
    }
  }

  private Checker() {}

  public static Counts check(History history) {
    Observed o = Observed.of(history);
    Found twoActive = MutualExclusion.check(o);
    Found pastLease = ActiveHoldsKey.check(o).plus(ValidityWithinServerLease.check(o));
    FencedEffects.Writes writes = FencedEffects.check(o);
    Found tokens = FencedEffects.tokensIssuedTwice(o);
    Found certainty = CertaintyIsHonest.check(o);
    Found disagreements = StateOutcomeAgreement.check(o);
    List<String> findings = new ArrayList<>();
    for (Found f : List.of(twoActive, pastLease, writes.stale(), tokens, certainty, disagreements)) {
      findings.addAll(f.findings());
    }
    return new Counts(o.of(History.Complete.class).size(), o.of(History.Fault.class).size(), o.grantedAt().size(),
        twoActive.count(), twoActive.worstMs(), pastLease.count(), pastLease.worstMs(), writes.attempted(),
        writes.controlStale(), writes.fencedStaleClaimedFenced(), writes.fencedStaleClaimedEfficiency(),
        writes.fencedRejected(), tokens.count(), certainty.count(), disagreements.count(), o.samples().size(),
        List.copyOf(findings), writes.stale().subjects());
  }
}
