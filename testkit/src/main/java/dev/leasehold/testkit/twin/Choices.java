package dev.leasehold.testkit.twin;

import java.util.ArrayList;
import java.util.List;

/**
 * The model's nondeterminism, made explicit. On a real server the model cannot tell whether a key
 * whose expiry is within the clock slack of "now" is still there; it asks {@link #choose} and the
 * harness explores every answer (depth first) and keeps the branch whose outcome the adapter
 * actually produced. On the simulated server nothing is uncertain and there is one branch.
 *
 * <p>This class is not threadsafe.
 */
public final class Choices {
  private final List<Boolean> forced;
  private final List<String> asked = new ArrayList<>();
  private int next;

  public Choices(List<Boolean> forced) {
    this.forced = forced;
  }

  /** The answer to an uncertain question; {@code what} documents it. */
  public boolean choose(String what) {
    asked.add(what);
    return next < forced.size() ? forced.get(next++) : nextDefault();
  }

  private boolean nextDefault() {
    next++;
    return false;
  }

  /** How many uncertain questions this branch asked. */
  public int asked() {
    return asked.size();
  }

  public List<String> questions() {
    return List.copyOf(asked);
  }
}
