package dev.leasehold.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.leasehold.testkit.blackbox.BlackBoxConformance;
import dev.leasehold.testkit.blackbox.BlackBoxProperty;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.runner.PropertyViolation;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each finding on a peer, replayed from its chain file: the test fails if the peer stops showing
 * it. Every other library replays the same chain without a violation, so the finding is the
 * library's and not the chain's.
 */
class PeerFindingsIntegrationTests {
  /** A finding that needs a race replays up to this many times; it showed in 2 of 4 replays here. */
  static final int RACE_TRIES = 12;

  @ParameterizedTest
  @ValueSource(strings = {"shedlock/extend-overwrites.chain", "shedlock/unlock-deletes-successor.chain"})
  void shedLocksDefaultUpdates_breakMutualExclusion_andNoOtherLibraryDoes(String chain) throws URISyntaxException {
    Path file = chain(chain);
    for (LockLibrary library : Peers.all()) {
      PropertyViolation violation = replay(library, file);
      if (library.name().equals("shedlock")) {
        assertNotNull(violation, "shedlock no longer shows " + chain);
        assertEquals(BlackBoxProperty.MutualExclusion.name(), violation.property(), violation.getMessage());
      } else {
        assertNull(violation, () -> library.name() + " replaying " + chain + ": " + violation.getMessage());
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"redisson-rlock-watchdog", "redisson-fencedlock"})
  void redissonsRetriedRenewal_isSentAfterUnlock(String name) throws URISyntaxException {
    Path file = chain(name + "/renewal-retried-after-unlock.chain");
    LockLibrary library = Peers.all().stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow();
    PropertyViolation violation = null;
    for (int i = 0; i < RACE_TRIES && violation == null; i++) {
      violation = replay(library, file);
    }
    assertNotNull(violation, name + " did not send after unlock in " + RACE_TRIES + " replays");
    assertEquals(BlackBoxProperty.NoSendAfterEnd.name(), violation.property(), violation.getMessage());
  }

  @Test
  void noLibraryWithoutAWatchdogSendsAfterRelease_onTheSameChain() throws URISyntaxException {
    Path file = chain("redisson-rlock-watchdog/renewal-retried-after-unlock.chain");
    for (LockLibrary library : Peers.all()) {
      if (!library.name().equals("redisson-rlock-watchdog") && !library.name().equals("redisson-fencedlock")) {
        PropertyViolation violation = replay(library, file);
        assertNull(violation, () -> library.name() + ": " + violation.getMessage());
      }
    }
  }

  private static PropertyViolation replay(LockLibrary library, Path file) {
    return BlackBoxConformance.of(library).printTo(s -> {}).replay(file);
  }

  private static Path chain(String name) throws URISyntaxException {
    return Path.of(Objects.requireNonNull(PeerFindingsIntegrationTests.class.getResource("/chains/" + name)).toURI());
  }
}
