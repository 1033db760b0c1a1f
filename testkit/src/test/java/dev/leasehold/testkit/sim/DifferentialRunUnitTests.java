package dev.leasehold.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The differential run's own judgement, with a second simulated server standing in for the real
 * one: both answer alike by construction, so every mismatch it reports would be a false alarm. The
 * stand-in's clock follows the wall clock from the epoch, as a real server's TIME does, so clock
 * tokens differ between the two by a real offset, and keys and counters with short TTLs expire
 * between steps as they do against a real server.
 */
class DifferentialRunUnitTests {
  private static final int SEQUENCES = 10;
  private static final int STEPS = 40;
  /**
   * The first seed: its sequence lets a counter with a short retention expire between two steps,
   * after a clock-floor token set an offset between the two counters, and then issues a counter
   * token, which must be compared without that offset.
   */
  private static final long SEED = 20_261_438L;

  @Test
  void twoServersThatAnswerAlike_neverMismatch() {
    DifferentialRun.Totals totals = new DifferentialRun.Totals();
    List<String> mismatches = new ArrayList<>();
    for (int i = 0; i < SEQUENCES && mismatches.isEmpty(); i++) {
      new DifferentialRun(wallClockServer(), 7, SEED + i, totals, mismatches).run(STEPS);
    }
    assertEquals(List.of(), mismatches, totals.summary());
    // The runs reached the tokens whose judgement reads the offset between the two servers' clocks.
    assertTrue(totals.clockTokens > 0, totals.summary());
  }

  /** A simulated server on its own clock, which follows the wall clock (epoch microseconds for TIME). */
  private static DifferentialRun.Real wallClockServer() {
    VirtualClock clock = new VirtualClock();
    SimulatedRedis server = new SimulatedRedis(clock);
    return argv -> {
      Instant now = Instant.now();
      long wall = now.getEpochSecond() * 1_000_000_000L + now.getNano() - LeaseClock.EPOCH_NANOS;
      clock.advance(Math.max(0, wall - clock.trueNanos()));
      try {
        return server.call(argv.toArray(String[]::new));
      } catch (RedisError e) {
        return new DifferentialRun.Err(e.getMessage());
      }
    };
  }
}
