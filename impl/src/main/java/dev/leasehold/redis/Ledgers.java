package dev.leasehold.redis;

import dev.leasehold.lease.LeaseAttempt;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * One adapter's {@link AttemptLedger}s, by attempt and then by lease key: the same pair (attempt,
 * lease key) gets the same ledger from any thread and from any equal attempt (one rebuilt from its
 * token and operation id finds the ledger of the original).
 *
 * <p>Weak in the attempt, so an attempt nobody uses any more is collected with its ledgers. What
 * keeps them is the attempt object the map holds, so {@link #beginAcquire} hands that object back:
 * callers send and open handles with it, and then every flight in progress (on its thread's stack)
 * and every handle keeps the pair's ledger. Keyed by the caller's own equal copy instead, a ledger
 * was dropped while a handle of the pair still renewed (the copy that was the key had been
 * collected), and the next replay got a new ledger that did not see that renew in flight.
 *
 * <p>A ledger that is clean ({@link AttemptLedger#isClean}: nothing in flight, nothing ambiguous,
 * no live handle) is dropped as soon as a request of its pair ends, since a new ledger would say
 * the same: an acquire and its release leave nothing behind. Weak references that the map held
 * until the collector found their attempts unreachable cost more than all the adapter's other
 * work per call at 8 threads (young pauses scanning them; bench/README.md). The drop and the
 * opening of an acquire's flight both hold the stripe's lock, and a handle registers its renew or
 * release only while it is live, so no request registers with a ledger once it is dropped.
 *
 * <p>Striped: an attempt lives in one of {@value #STRIPES} maps chosen by its hash, each guarded
 * by itself, because one map under one lock was the adapter's most contended monitor at 8 threads
 * (bench/README.md). Lock order: a stripe, then a ledger.
 *
 * <p>This class is threadsafe.
 */
final class Ledgers {
  static final int STRIPES = 16;

  /**
   * An acquire's flight, opened on its pair's ledger, and the attempt object that keeps the
   * ledger: use this attempt, not an equal copy.
   *
   * <p>This record is immutable.
   */
  record Slot(LeaseAttempt attempt, AttemptLedger ledger, AttemptLedger.Flight flight) {}

  /**
   * One attempt's ledgers by lease key, and (weakly, as the reference it is) the attempt object
   * that is the map's key. Nearly every attempt takes one lease key, and a ByKey is kept per held
   * lease: the first key's ledger sits in two fields, and a map is made only for more. Guarded by
   * its stripe.
   */
  private static final class ByKey extends WeakReference<LeaseAttempt> {
    private String firstKey;
    private AttemptLedger first;
    private Map<String, AttemptLedger> more;

    ByKey(LeaseAttempt attempt) {
      super(attempt);
    }

    AttemptLedger ledger(String leaseKey) {
      if (leaseKey.equals(firstKey)) {
        return first;
      }
      return more == null ? null : more.get(leaseKey);
    }

    /** Adds the ledger of a key this attempt has none for. */
    void add(String leaseKey, AttemptLedger ledger) {
      if (first == null) {
        firstKey = leaseKey;
        first = ledger;
      } else {
        if (more == null) {
          more = new HashMap<>();
        }
        more.put(leaseKey, ledger);
      }
    }

    void remove(String leaseKey) {
      if (leaseKey.equals(firstKey)) {
        firstKey = null;
        first = null;
      } else if (more != null) {
        more.remove(leaseKey);
        if (more.isEmpty()) {
          more = null;
        }
      }
    }

    boolean isEmpty() {
      return first == null && more == null;
    }
  }

  private final List<Map<LeaseAttempt, ByKey>> stripes = new ArrayList<>(STRIPES);

  Ledgers() {
    for (int i = 0; i < STRIPES; i++) {
      stripes.add(new WeakHashMap<>());
    }
  }

  /**
   * Opens the flight of an acquire of {@code attempt} on {@code leaseKey} on the pair's ledger
   * (created on first use) and returns it with the attempt that keeps the ledger.
   */
  Slot beginAcquire(LeaseAttempt attempt, String leaseKey) {
    int h = attempt.hashCode();
    Map<LeaseAttempt, ByKey> stripe = stripes.get(Math.floorMod(h ^ (h >>> 16), STRIPES));
    synchronized (stripe) {
      ByKey byKey = stripe.get(attempt);
      LeaseAttempt key = byKey == null ? null : byKey.get();
      if (key == null) {
        // None yet, or its key was collected between the map's expunging and now: start afresh.
        byKey = new ByKey(attempt);
        stripe.put(attempt, byKey);
        key = attempt;
      }
      ByKey owner = byKey;
      AttemptLedger ledger = byKey.ledger(leaseKey);
      if (ledger == null) {
        ledger = new AttemptLedger(ended -> dropIfClean(stripe, owner, leaseKey, ended));
        byKey.add(leaseKey, ledger);
      }
      return new Slot(key, ledger, ledger.beginAcquire());
    }
  }

  /** Drops {@code ledger} if it is still the pair's and clean. */
  private static void dropIfClean(Map<LeaseAttempt, ByKey> stripe, ByKey byKey, String leaseKey, AttemptLedger ledger) {
    synchronized (stripe) {
      if (byKey.ledger(leaseKey) != ledger || !ledger.isClean()) {
        return;
      }
      byKey.remove(leaseKey);
      LeaseAttempt attempt = byKey.get();
      if (byKey.isEmpty() && attempt != null && stripe.get(attempt) == byKey) {
        stripe.remove(attempt);
      }
    }
  }
}
