package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.testkit.fault.Backend;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;

/**
 * The adapter's handles of one chain by id (the order the chain first saw them, which the twin's
 * handle ids follow), each with the attempt the adapter returned it for (not the one the model
 * thinks) and the grant behind it (for FencedEffects).
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class AdapterHandles extends AbstractList<LeaseHandle> {
  private final Backend backend;
  private final List<LeaseHandle> handles = new ArrayList<>();
  private final List<Integer> attempts = new ArrayList<>();
  private final List<Integer> grants = new ArrayList<>();

  AdapterHandles(Backend backend) {
    this.backend = backend;
  }

  @Override
  public LeaseHandle get(int id) {
    return handles.get(id);
  }

  @Override
  public int size() {
    return handles.size();
  }

  /** The id of {@code h}; a handle not seen before gets the next one. */
  int id(LeaseHandle h) {
    for (int i = 0; i < handles.size(); i++) {
      if (handles.get(i) == h) {
        return i;
      }
    }
    handles.add(h);
    grants.add(grantOf(h.fencingToken().orElse(0)));
    return handles.size() - 1;
  }

  /** After tryAcquire returned handle {@code id} for {@code attempt}: a new handle's attempt. */
  void returned(int id, int attempt) {
    if (id == attempts.size()) {
      attempts.add(attempt);
    }
  }

  int attempt(int id) {
    return attempts.get(id);
  }

  /** Whether handle {@code id} is its attempt's newest: the one the spec's single handle per attempt stands for. */
  boolean isNewest(int id) {
    return attempts.lastIndexOf(attempts.get(id)) == id;
  }

  /** The newest handle of {@code attempt}, or -1 if it has none. */
  int newestOf(int attempt) {
    return attempts.lastIndexOf(attempt);
  }

  int grant(int id) {
    return grants.get(id);
  }

  /** The grant behind a token: the latest grant that issued it (the server's ghost log). */
  private int grantOf(long token) {
    List<Long> log = backend.grantLog();
    if (log == null) {
      return (int) Math.min(Integer.MAX_VALUE, token);
    }
    for (int i = log.size() - 1; i >= 0; i--) {
      if (log.get(i) == token) {
        return i + 1;
      }
    }
    return 0;
  }
}
