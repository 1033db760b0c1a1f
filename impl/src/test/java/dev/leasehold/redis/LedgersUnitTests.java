package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.leasehold.lease.LeaseAttempt;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** One ledger per pair (attempt, lease key), whichever thread and whichever equal attempt asks. */
class LedgersUnitTests {
  static LeaseAttempt attempt(int n, String operationId) {
    return new LeaseAttempt(String.format("%032d", n), operationId);
  }

  @Test
  void onePairOneLedger_anEqualAttemptFindsIt_anotherKeyOrAttemptHasItsOwn() {
    Ledgers ledgers = new Ledgers();
    LeaseAttempt original = attempt(1, "op");
    Ledgers.Slot first = ledgers.of(original, "k1");
    assertSame(original, first.attempt());
    Ledgers.Slot again = ledgers.of(attempt(1, "op"), "k1");
    assertSame(first.ledger(), again.ledger(), "an equal attempt, rebuilt from its parts");
    assertSame(original, again.attempt(), "and the attempt that keeps the ledger");
    assertNotSame(first.ledger(), ledgers.of(original, "k2").ledger());
    assertNotSame(first.ledger(), ledgers.of(attempt(1, "other-op"), "k1").ledger());
    assertNotSame(first.ledger(), ledgers.of(attempt(2, "op"), "k1").ledger());
  }

  /**
   * The attempt handed back keeps the ledger, whoever created it: a second caller with an equal
   * copy holds what it was given (as a handle does), the first caller lets go of everything, and a
   * collection later a third copy still finds that ledger. Keyed by each caller's own copy, it was
   * gone once the first copy was collected.
   */
  @Test
  void theAttemptHandedBack_keepsTheLedger_afterTheFirstCallersCopyIsGone() {
    Ledgers ledgers = new Ledgers();
    ledgers.of(attempt(1, "op"), "k"); // the first caller's copy, dropped at once
    Ledgers.Slot kept = ledgers.of(attempt(1, "op"), "k");
    for (int i = 0; i < 20; i++) {
      System.gc();
      for (int n = 0; n < Ledgers.STRIPES * 4; n++) {
        ledgers.of(attempt(1_000 + n, "op"), "k");
      }
    }
    assertSame(kept.ledger(), ledgers.of(attempt(1, "op"), "k").ledger());
    assertEquals(attempt(1, "op"), kept.attempt());
  }

  /**
   * Threads released together, each asking for the same 64 pairs with attempts of its own (equal
   * ones) and holding what it is handed back, as the adapter does: every pair got one ledger.
   */
  @Test
  void concurrentFirstUses_ofOnePair_getTheSameLedger() throws Exception {
    int threads = 8;
    int pairs = 64;
    for (int round = 0; round < 50; round++) {
      Ledgers ledgers = new Ledgers();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<List<Ledgers.Slot>>> seen = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          seen.add(pool.submit(() -> {
            start.await();
            List<Ledgers.Slot> got = new ArrayList<>();
            for (int p = 0; p < pairs; p++) {
              got.add(ledgers.of(attempt(p, "op"), "k"));
            }
            return got;
          }));
        }
        start.countDown();
        for (int p = 0; p < pairs; p++) {
          Set<AttemptLedger> distinct = new HashSet<>();
          for (Future<List<Ledgers.Slot>> f : seen) {
            distinct.add(f.get().get(p).ledger());
          }
          assertEquals(1, distinct.size(), "round " + round + ", pair " + p);
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /** Nothing but the attempt keeps its ledgers: once it is unreachable they are collected. */
  @Test
  void ledgersOfAnUnreachableAttempt_areCollected() {
    Ledgers ledgers = new Ledgers();
    WeakReference<AttemptLedger> ledger = new WeakReference<>(ledgers.of(attempt(7, "op"), "k").ledger());
    for (int i = 0; i < 200 && ledger.get() != null; i++) {
      System.gc();
      // A WeakHashMap drops a collected key's entry (and so its value) on its next use.
      for (int n = 0; n < Ledgers.STRIPES * 4; n++) {
        ledgers.of(attempt(1_000 + n, "op"), "k");
      }
    }
    assertNull(ledger.get(), "the ledger outlived its attempt");
  }
}
