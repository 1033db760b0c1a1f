package dev.leasehold.testkit.twin;

/**
 * The fenced effect store of the spec's Effect(a) ({@code storeHigh, storeLast, storeMax}): it
 * accepts a write iff its token is positive and at least the highest it accepted, and remembers
 * the grants behind the writes so that FencedEffects ({@code storeLast = storeMax}) can be checked.
 * The twin keeps one for its handles and the harness one for the adapter's, with this one rule.
 *
 * <p>This class is not threadsafe.
 */
public final class FencedStore {
  private long high;
  private int last;
  private int max;

  FencedStore copy() {
    FencedStore s = new FencedStore();
    s.high = high;
    s.last = last;
    s.max = max;
    return s;
  }

  /** A write with {@code token} from the handle of grant {@code grant}; whether the store accepted it. */
  public boolean write(long token, int grant) {
    if (token <= 0 || token < high) {
      return false;
    }
    high = token;
    last = grant;
    max = Math.max(max, grant);
    return true;
  }

  /** The grant behind the last accepted write (spec: storeLast). */
  public int last() {
    return last;
  }

  /** The newest grant behind any accepted write (spec: storeMax). */
  public int max() {
    return max;
  }
}
