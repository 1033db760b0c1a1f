package dev.leasehold.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.chaos.History.Complete;
import dev.leasehold.chaos.History.Effect;
import dev.leasehold.chaos.History.Fault;
import dev.leasehold.chaos.History.Invoke;
import dev.leasehold.chaos.History.Observe;
import dev.leasehold.chaos.History.Sample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The checker on small hand-written histories: each count sees the violation it is named for (so a
 * shared predicate of {@code LeaseInvariants} that stops seeing it fails here), the cases each
 * check excuses stay excused, and a clean history counts nothing. Times are in ms for readability.
 */
class CheckerTest {
  private static final long MS = 1_000_000L;

  private static Complete granted(History h, long seq, long atMs, String actor, String grant, long deadlineMs, long token) {
    return new Complete(seq, atMs * MS, actor, grant, "acquire", "Acquired", "ACTIVE", deadlineMs * MS, token, "FENCED", "");
  }

  private static Effect write(long atMs, String grant, String store, long token, boolean accepted, long seq) {
    return new Effect(atMs * MS, atMs * MS, grant.substring(0, 2), grant, store, token, accepted, seq, 0, null, "FENCED");
  }

  /** Two grants one after another, each written once, sampled while held. */
  private static History clean() {
    History h = new History();
    h.add(new Invoke(1, 0, "w1", "w1.a1", "acquire"));
    h.add(granted(h, 1, 1, "w1", "w1.a1", 900, 10));
    h.add(new Sample(100 * MS, 101 * MS, "w1.a1", 900, 10, "s"));
    h.add(write(200, "w1.a1", "fenced", 10, true, 1));
    h.add(write(201, "w1.a1", "control", 10, true, 1));
    h.add(new Invoke(2, 300 * MS, "w1", "w1.a1", "release"));
    h.add(new Complete(2, 301 * MS, "w1", "w1.a1", "release", "Released", "RELEASED", 301 * MS, 10, "FENCED", ""));
    h.add(new Invoke(3, 302 * MS, "w2", "w2.a1", "acquire"));
    h.add(granted(h, 3, 303, "w2", "w2.a1", 1200, 11));
    h.add(new Sample(400 * MS, 401 * MS, "w2.a1", 900, 11, "s"));
    h.add(write(500, "w2.a1", "fenced", 11, true, 2));
    h.add(write(501, "w2.a1", "control", 11, true, 2));
    return h;
  }

  @Test
  void aCleanHistoryCountsNothing() {
    Checker.Counts c = Checker.check(clean());
    assertEquals(0, c.twoActivePairs(), c.findings().toString());
    assertEquals(0, c.activePastLease(), c.findings().toString());
    assertEquals(0, c.controlStaleAccepted());
    assertEquals(0, c.fencedStaleAccepted());
    assertEquals(0, c.duplicateTokens());
    assertEquals(0, c.certaintyContradictions());
    assertEquals(0, c.stateOutcomeDisagreements());
    assertEquals(2, c.grants());
  }

  @Test
  void overlappingBeliefsAreCounted() {
    History h = clean();
    // w3 is granted while w2 still believes it holds the lease (until 1200 ms).
    h.add(granted(h, 9, 600, "w3", "w3.a1", 1500, 12));
    Checker.Counts c = Checker.check(h);
    assertEquals(1, c.twoActivePairs());
    assertEquals(600, c.twoActiveMaxMs());
  }

  @Test
  void aPairCountsOnceHoweverOftenItOverlaps() {
    History h = clean();
    h.add(granted(h, 9, 600, "w3", "w3.a1", 1500, 12));
    h.add(new Observe(700 * MS, "w3", "w3.a1", "UNKNOWN", 700 * MS));
    h.add(new Observe(800 * MS, "w3", "w3.a1", "ACTIVE", 1500 * MS));
    Checker.Counts c = Checker.check(h);
    assertEquals(1, c.twoActivePairs(), c.findings().toString());
    assertEquals(400, c.twoActiveMaxMs(), "the longest overlap: 800 to 1200 ms");
  }

  @Test
  void beliefsThatOnlyTouchAreNotCounted() {
    History h = clean();
    // w3 is granted the instant w2's deadline passes.
    h.add(granted(h, 9, 1200, "w3", "w3.a1", 1500, 12));
    assertEquals(0, Checker.check(h).twoActivePairs());
  }

  @Test
  void activeWhileTheServerShowsAnotherHolderIsCounted() {
    History h = clean();
    h.add(new Sample(700 * MS, 701 * MS, "w9.a1", 900, 12, "s"));
    assertEquals(1, Checker.check(h).activePastLease());
  }

  @Test
  void activeWhileTheServerShowsNoKeyIsCounted() {
    History h = clean();
    h.add(new Sample(700 * MS, 701 * MS, null, -2, 11, "s"));
    Checker.Counts c = Checker.check(h);
    assertEquals(1, c.activePastLease());
    assertEquals(500, c.activePastLeaseMaxMs(), "believed ACTIVE until 1200 ms, 500 ms past the sample");
  }

  @Test
  void aDeadlineWithinTheToleranceOfThePttlIsNotCounted() {
    History h = clean();
    // At 700 ms the server says 498 ms are left: 1199 ms, 1 ms short of w2's deadline, within 2 ms.
    h.add(new Sample(700 * MS, 701 * MS, "w2.a1", 498, 11, "s"));
    assertEquals(0, Checker.check(h).activePastLease());
  }

  @Test
  void aDeadlineBeyondTheServerPttlIsCounted() {
    History h = clean();
    // At 700 ms the server says 100 ms are left, but w2's deadline is 1200 ms.
    h.add(new Sample(700 * MS, 701 * MS, "w2.a1", 100, 11, "s"));
    assertEquals(1, Checker.check(h).activePastLease());
  }

  @Test
  void aWriteAfterALaterGrantsWriteIsStale() {
    History h = clean();
    // w1 (granted first) writes again after w2 wrote: the control takes it, the fenced store does not.
    h.add(write(600, "w1.a1", "fenced", 10, false, 0));
    h.add(write(601, "w1.a1", "control", 10, true, 3));
    Checker.Counts c = Checker.check(h);
    assertEquals(1, c.controlStaleAccepted());
    assertEquals(0, c.fencedStaleAccepted());
    assertEquals(1, c.fencedRejected());
  }

  @Test
  void aStaleWriteIsSplitByTheGuaranteeItsWriterClaimed() {
    History h = clean();
    h.add(new Effect(600 * MS, 600 * MS, "w1", "w1.a1", "fenced", 11, true, 3, 11, "w2.a1", "EFFICIENCY_ONLY"));
    Checker.Counts c = Checker.check(h);
    assertEquals(0, c.fencedStaleAcceptedClaimedFenced());
    assertEquals(1, c.fencedStaleAcceptedClaimedEfficiency());
    assertEquals(java.util.Set.of("fenced#3"), c.staleWrites());
  }

  @Test
  void aReissuedTokenLetsTheFencedStoreAcceptAStaleWrite() {
    History h = clean();
    h.add(write(600, "w1.a1", "fenced", 11, true, 3));
    h.add(granted(h, 8, 2000, "w9", "w9.a1", 2500, 11));
    Checker.Counts c = Checker.check(h);
    assertEquals(1, c.fencedStaleAcceptedClaimedFenced());
    assertEquals(1, c.duplicateTokens());
  }

  @Test
  void unavailableAfterWhichTheKeyHeldTheAttemptIsACertaintyContradiction() {
    History h = clean();
    h.add(new Invoke(7, 1300 * MS, "w4", "w4.a1", "acquire"));
    h.add(new Complete(7, 1400 * MS, "w4", "w4.a1", "acquire", "Unavailable", "-", -1, 0, "-", ""));
    h.add(new Sample(1500 * MS, 1501 * MS, "w4.a1", 900, 13, "s"));
    assertEquals(1, Checker.check(h).certaintyContradictions());
  }

  @Test
  void anotherCallOfTheSameAttemptExplainsAHolding() {
    History h = clean();
    h.add(new Invoke(6, 1250 * MS, "w4", "w4.a1", "acquire"));
    h.add(new Invoke(7, 1300 * MS, "w4", "w4.a1", "acquire"));
    h.add(new Complete(7, 1400 * MS, "w4", "w4.a1", "acquire", "Unavailable", "-", -1, 0, "-", ""));
    h.add(new Sample(1500 * MS, 1501 * MS, "w4.a1", 900, 13, "s"));
    assertEquals(0, Checker.check(h).certaintyContradictions());
  }

  /** w2 (held, PTTL 900 ms at 400 ms) sends {@code op} at 600 ms and is told Unavailable at 650 ms. */
  private static History unavailable(String op) {
    History h = clean();
    h.add(new Invoke(7, 600 * MS, "w2", "w2.a1", op));
    h.add(new Complete(7, 650 * MS, "w2", "w2.a1", op, "Unavailable", "ACTIVE", 1200 * MS, 11, "FENCED", ""));
    return h;
  }

  @Test
  void unavailableReleaseAfterWhichTheKeyVanishedEarlyIsACertaintyContradiction() {
    History h = unavailable("release");
    h.add(new Sample(700 * MS, 701 * MS, null, -2, 11, "s"));
    assertEquals(1, Checker.check(h).certaintyContradictions());
  }

  @Test
  void aKeyThatVanishedAcrossARestartSaysNothingAboutARelease() {
    History h = unavailable("release");
    h.add(new Fault(680 * MS, 690 * MS, "kill9-restart", "restarted empty"));
    h.add(new Sample(700 * MS, 701 * MS, null, -2, 0, "s"));
    assertEquals(0, Checker.check(h).certaintyContradictions());
  }

  @Test
  void unavailableRenewAfterWhichTheExpiryMovedLaterIsACertaintyContradiction() {
    History h = unavailable("renew");
    h.add(new Sample(700 * MS, 701 * MS, "w2.a1", 1000, 11, "s"));
    assertEquals(1, Checker.check(h).certaintyContradictions());
  }

  @Test
  void anEarlierAmbiguousRenewExplainsALaterExtension() {
    History h = unavailable("renew");
    h.add(new Complete(5, 550 * MS, "w2", "w2.a1", "renew", "Indeterminate", "UNKNOWN", 1200 * MS, 11, "FENCED", ""));
    h.add(new Sample(700 * MS, 701 * MS, "w2.a1", 1000, 11, "s"));
    assertEquals(0, Checker.check(h).certaintyContradictions());
  }

  @ParameterizedTest(name = "{0} {1} then state() {2}: {4} disagreement(s)")
  @CsvSource({
      "renew, Renewed, UNKNOWN, 1500, 1",
      "renew, Renewed, LOST, 1500, 1",
      "renew, Renewed, LOST, 801, 0",
      "renew, Renewed, ACTIVE, 1500, 0",
      "renew, Lost, ACTIVE, 1500, 1",
      "renew, NotActive(LOST), RELEASED, 800, 1",
      "renew, NotActive(LOST), LOST, 800, 0",
      "renew, Indeterminate, ACTIVE, 1500, 1",
      "renew, Indeterminate, UNKNOWN, 1500, 0",
      "release, Released, ACTIVE, 1500, 1",
      "release, AlreadyAbsent, LOST, 800, 0",
      "acquire, ReplayedSameOperation, RELEASED, 800, 1",
      "acquire, Acquired, UNKNOWN, 800, 0",
  })
  void anOutcomeThatContradictsStateIsCounted(String op, String outcome, String state, long deadlineMs, int expected) {
    History h = clean();
    // state() read at 800 ms: a deadline of 801 ms leaves under 2 ms, which may have run out meanwhile.
    h.add(new Complete(6, 800 * MS, "w2", "w2.a1", op, outcome, state, deadlineMs * MS, 11, "FENCED", ""));
    assertEquals(expected, Checker.check(h).stateOutcomeDisagreements(), Checker.check(h).findings().toString());
  }
}
