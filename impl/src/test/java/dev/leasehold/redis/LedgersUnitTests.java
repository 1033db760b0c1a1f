package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.LeaseAttempt;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One ledger per pair (attempt, lease key), whichever thread and whichever equal attempt asks, as
 * long as it has something to say; a clean one is dropped when a request of its pair ends.
 */
class LedgersUnitTests {
  static LeaseAttempt attempt(int n, String operationId) {
    return new LeaseAttempt(String.format("%032d", n), operationId);
  }

  @Test
  void onePairOneLedger_anEqualAttemptFindsIt_anotherKeyOrAttemptHasItsOwn() {
    Ledgers ledgers = new Ledgers();
    LeaseAttempt original = attempt(1, "op");
    Ledgers.Slot first = ledgers.beginAcquire(original, "k1");
    assertSame(original, first.attempt());
    Ledgers.Slot again = ledgers.beginAcquire(attempt(1, "op"), "k1");
    assertSame(first.ledger(), again.ledger(), "an equal attempt, rebuilt from its parts");
    assertSame(original, again.attempt(), "and the attempt that keeps the ledger");
    assertNotSame(first.ledger(), ledgers.beginAcquire(original, "k2").ledger());
    assertNotSame(first.ledger(), ledgers.beginAcquire(attempt(1, "other-op"), "k1").ledger());
    assertNotSame(first.ledger(), ledgers.beginAcquire(attempt(2, "op"), "k1").ledger());
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
    ledgers.beginAcquire(attempt(1, "op"), "k"); // the first caller's copy, dropped at once
    Ledgers.Slot kept = ledgers.beginAcquire(attempt(1, "op"), "k");
    for (int i = 0; i < 20; i++) {
      System.gc();
      for (int n = 0; n < Ledgers.STRIPES * 4; n++) {
        ledgers.beginAcquire(attempt(1_000 + n, "op"), "k");
      }
    }
    assertSame(kept.ledger(), ledgers.beginAcquire(attempt(1, "op"), "k").ledger());
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
              got.add(ledgers.beginAcquire(attempt(p, "op"), "k"));
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
    WeakReference<AttemptLedger> ledger = new WeakReference<>(ledgers.beginAcquire(attempt(7, "op"), "k").ledger());
    for (int i = 0; i < 200 && ledger.get() != null; i++) {
      System.gc();
      // A WeakHashMap drops a collected key's entry (and so its value) on its next use.
      for (int n = 0; n < Ledgers.STRIPES * 4; n++) {
        ledgers.beginAcquire(attempt(1_000 + n, "op"), "k");
      }
    }
    assertNull(ledger.get(), "the ledger outlived its attempt");
  }

  /** An acquire that ended and left nothing behind (no handle, nothing ambiguous): the pair starts afresh. */
  @Test
  void aCleanLedger_isDroppedWhenItsRequestEnds() {
    Ledgers ledgers = new Ledgers();
    LeaseAttempt original = attempt(1, "op");
    Ledgers.Slot first = ledgers.beginAcquire(original, "k");
    first.ledger().endAcquire(first.flight());
    Ledgers.Slot next = ledgers.beginAcquire(attempt(1, "op"), "k");
    assertNotSame(first.ledger(), next.ledger());
    assertNotSame(original, next.attempt(), "the equal copy keys the new ledger");
  }

  /**
   * A ledger's end callback runs after its monitor is released, so one thread's callback can come
   * after another's dropped the ledger and a third made the pair a new one: it must not drop the new
   * one, whose flight is open (here the late callback is replayed by ending the same flight twice).
   */
  @Test
  void aLateCallbackOfADroppedLedger_leavesTheNewLedgerAlone() {
    Ledgers ledgers = new Ledgers();
    // The attempt's ledger on another key keeps its entry in the map, so the new ledger of "k" is made in the same entry.
    Ledgers.Slot otherKey = ledgers.beginAcquire(attempt(1, "op"), "k2");
    Ledgers.Slot old = ledgers.beginAcquire(attempt(1, "op"), "k");
    old.ledger().endAcquire(old.flight());
    Ledgers.Slot current = ledgers.beginAcquire(attempt(1, "op"), "k");
    assertNotSame(old.ledger(), current.ledger());
    old.ledger().endAcquire(old.flight());
    assertSame(current.ledger(), ledgers.beginAcquire(attempt(1, "op"), "k").ledger(),
        "the pair's ledger with a flight open was dropped by the old ledger's callback");
    assertSame(otherKey.ledger(), ledgers.beginAcquire(attempt(1, "op"), "k2").ledger());
  }

  /** What a new ledger would not know keeps the old one: a flight still open, an ambiguous release or renew. */
  @Test
  void aLedgerThatRemembersSomething_isKept() {
    Ledgers ledgers = new Ledgers();
    Ledgers.Slot open = ledgers.beginAcquire(attempt(1, "op"), "k");
    Ledgers.Slot second = ledgers.beginAcquire(attempt(1, "op"), "k");
    second.ledger().endAcquire(second.flight());
    assertSame(open.ledger(), ledgers.beginAcquire(attempt(1, "op"), "k").ledger(), "a flight is still open");

    Ledgers.Slot released = ledgers.beginAcquire(attempt(2, "op"), "k");
    released.ledger().beginRelease();
    released.ledger().endRelease(true);
    released.ledger().endAcquire(released.flight());
    assertSame(released.ledger(), ledgers.beginAcquire(attempt(2, "op"), "k").ledger(), "a release may still apply");

    Ledgers.Slot renewed = ledgers.beginAcquire(attempt(3, "op"), "k");
    renewed.ledger().endRenew(renewed.ledger().beginRenew(50), true);
    renewed.ledger().endAcquire(renewed.flight());
    assertSame(renewed.ledger(), ledgers.beginAcquire(attempt(3, "op"), "k").ledger(), "a short renew may still apply");
  }

  /**
   * Threads acquiring and ending on one pair (equal attempts of their own) while its ledger is
   * dropped and made again: two ledgers never have a flight open at once, since dropping and
   * opening a flight hold the same lock.
   */
  @Test
  void droppingAndOpening_neverLeaveTwoLedgersInFlight() throws Exception {
    Ledgers ledgers = new Ledgers();
    Map<AttemptLedger, AtomicInteger> open = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        runs.add(pool.submit(() -> {
          for (int i = 0; i < 100_000; i++) {
            Ledgers.Slot slot = ledgers.beginAcquire(attempt(1, "op"), "k");
            open.computeIfAbsent(slot.ledger(), l -> new AtomicInteger()).incrementAndGet();
            if (open.values().stream().filter(n -> n.get() > 0).count() > 1) {
              overlaps.incrementAndGet();
            }
            open.get(slot.ledger()).decrementAndGet();
            slot.ledger().endAcquire(slot.flight());
          }
        }));
      }
      for (Future<?> f : runs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(0, overlaps.get(), "flights open on two ledgers of one pair at once");
    assertTrue(open.size() > 1, "the ledger was never dropped and made again");
  }
}
