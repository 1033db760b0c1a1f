package dev.leasehold.testkit.blackbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.blackbox.ToyLock.Flaw;
import dev.leasehold.testkit.runner.ChainFile;
import dev.leasehold.testkit.runner.PropertyViolation;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each black-box property can fail: a lock with one flaw breaks exactly the property that names
 * it on a short chain, and the same lock without the flaw passes every chain here and a random run.
 */
class BlackBoxPropertiesIntegrationTests {
  /** For each flaw: the property it breaks and a chain that shows it. */
  static final Map<Flaw, Case> CASES = Map.of(
      Flaw.RELEASE_KEEPS_KEY, new Case(BlackBoxProperty.NoLeaseLeftBehind,
          List.of("tryAcquire(client=0, ttlMs=300)", "release(client=0)")),
      Flaw.REFUSAL_DELETES, new Case(BlackBoxProperty.CertaintyIsHonest,
          List.of("tryAcquire(client=1, ttlMs=300)", "tryAcquire(client=0, ttlMs=300)")),
      Flaw.TOKEN_GOES_BACK, new Case(BlackBoxProperty.FencedEffects,
          List.of("tryAcquire(client=0, ttlMs=300)", "release(client=0)", "tryAcquire(client=1, ttlMs=300)")),
      Flaw.BELIEF_TOO_LONG, new Case(BlackBoxProperty.ValidityWithinServerLease,
          List.of("tryAcquire(client=0, ttlMs=300)")),
      Flaw.UNLOCK_WITHOUT_COMPARE, new Case(BlackBoxProperty.MutualExclusion,
          List.of("tryAcquire(client=0, ttlMs=80)", "tick(ms=150)", "tryAcquire(client=1, ttlMs=400)",
              "release(client=0)")),
      Flaw.UNLOCK_WITHOUT_COMPARE_SAYS_NOT_HELD, new Case(BlackBoxProperty.CertaintyIsHonest,
          List.of("tryAcquire(client=0, ttlMs=80)", "tick(ms=150)", "tryAcquire(client=1, ttlMs=400)",
              "release(client=0)")),
      Flaw.RENEW_WITHOUT_COMPARE, new Case(BlackBoxProperty.MutualExclusion,
          List.of("tryAcquire(client=0, ttlMs=80)", "tick(ms=150)", "tryAcquire(client=1, ttlMs=400)",
              "renew(client=0, ttlMs=80)")),
      Flaw.SENDS_AFTER_RELEASE, new Case(BlackBoxProperty.NoSendAfterEnd,
          List.of("tryAcquire(client=0, ttlMs=300)", "release(client=0)", "tick(ms=200)")),
      // The release's GET is answered 150 ms late and its DEL goes after: the lock ran out in
      // between, and client 1, trying meanwhile, was granted it.
      Flaw.CHECK_THEN_DEL, new Case(BlackBoxProperty.MutualExclusion,
          List.of("tryAcquire(client=0, ttlMs=100)", "tick(ms=60)", "delayedRelease(client=0, ms=150)")),
      Flaw.VALIDITY_FROM_REPLY, new Case(BlackBoxProperty.ValidityWithinServerLease,
          List.of("delayedAcquire(client=0, ttlMs=300, ms=100)")));

  record Case(BlackBoxProperty property, List<String> steps) {}

  @TempDir
  Path dir;

  @Test
  void eachFlaw_breaksItsProperty_andTheCorrectLockPassesTheSameChain() {
    for (Map.Entry<Flaw, Case> e : CASES.entrySet()) {
      Path chain = dir.resolve(e.getKey() + ".chain");
      ChainFile.write(chain, 1, e.getValue().steps(), e.getKey().name());
      PropertyViolation broken = BlackBoxConformance.of(new ToyLock(e.getKey())).printTo(s -> {}).replay(chain);
      assertNotNull(broken, e.getKey() + " went unnoticed");
      assertEquals(e.getValue().property().name(), broken.property(), e.getKey() + ": " + broken.getMessage());
      PropertyViolation sound = BlackBoxConformance.of(new ToyLock(Flaw.NONE)).printTo(s -> {}).replay(chain);
      assertNull(sound, () -> "the correct lock failed " + e.getKey() + "'s chain: " + sound.getMessage());
    }
  }

  @Test
  void aChainFileNamingItsProperty_isJudgedOnThatPropertyAlone() {
    Case keepsKey = CASES.get(Flaw.RELEASE_KEEPS_KEY);
    BlackBoxConformance lane = BlackBoxConformance.of(new ToyLock(Flaw.RELEASE_KEEPS_KEY)).printTo(s -> {});
    Path forItsProperty = dir.resolve("own.chain");
    ChainFile.write(forItsProperty, 1, Optional.of(keepsKey.property().name()), keepsKey.steps(), "saved for its property");
    PropertyViolation shown = lane.replay(forItsProperty);
    assertNotNull(shown, "the chain no longer shows its property");
    assertEquals(keepsKey.property().name(), shown.property());
    // The same steps saved for another property: the lock breaks NoLeaseLeftBehind there, which this
    // replay does not judge.
    Path forAnother = dir.resolve("other.chain");
    ChainFile.write(forAnother, 1, Optional.of(BlackBoxProperty.MutualExclusion.name()), keepsKey.steps(), "saved for another");
    PropertyViolation other = lane.replay(forAnother);
    assertNull(other, () -> "judged on a property the file does not name: " + other.getMessage());
    Path unknown = dir.resolve("unknown.chain");
    ChainFile.write(unknown, 1, Optional.of("NoSuchProperty"), keepsKey.steps(), "a typo");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> lane.replay(unknown));
    assertTrue(e.getMessage().contains("NoSuchProperty"), e.getMessage());
  }

  @Test
  void aRunSavesEachViolationWithItsProperty_andTheFileReplaysIt() {
    Verdict verdict = BlackBoxConformance.of(new ToyLock(Flaw.BELIEF_TOO_LONG)).chains(5).maxLength(8).seed(3)
        .printTo(s -> {}).reportDir(dir).run();
    Path file = assertInstanceOf(Verdict.Finding.Violated.class, verdict.finding(BlackBoxProperty.ValidityWithinServerLease))
        .chainFile().orElseThrow();
    assertEquals(Optional.of(BlackBoxProperty.ValidityWithinServerLease.name()), ChainFile.read(file).property());
    PropertyViolation again = BlackBoxConformance.of(new ToyLock(Flaw.BELIEF_TOO_LONG)).printTo(s -> {}).replay(file);
    assertNotNull(again);
    assertEquals(BlackBoxProperty.ValidityWithinServerLease.name(), again.property());
  }

  @Test
  void theCorrectLock_passesARandomRun_withEveryPropertyTested() {
    Verdict verdict = BlackBoxConformance.of(new ToyLock(Flaw.NONE)).chains(15).maxLength(16).seed(5)
        .reportDir(dir).run();
    assertTrue(verdict.conforms(), () -> VerdictTable.markdown(List.of(verdict)));
    for (BlackBoxProperty p : BlackBoxProperty.values()) {
      assertTrue(verdict.finding(p) instanceof Verdict.Finding.Held held && held.reached() > 0,
          () -> p + " was not tested: " + VerdictTable.markdown(List.of(verdict)));
    }
  }
}
