package dev.leasehold.redis;

import dev.leasehold.lease.LeaseException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What {@link RedisLeases} opened, closed newest first: what was opened later may use what was
 * opened before it (a connection its client, the watchdog the gateway), never the other way round.
 * A failing close does not stop the others.
 *
 * <p>This class is not threadsafe: the builder fills it on one thread, and {@link RedisLeases}
 * closes it once, behind its own closed flag.
 */
final class OpenedResources {
  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  void push(AutoCloseable resource) {
    opened.push(resource);
  }

  /**
   * Closes everything, newest first.
   *
   * @throws LeaseException if any close failed, with the first failure as cause and the others
   *     suppressed
   */
  void closeAll() {
    RuntimeException first = null;
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Exception e) {
        if (first == null) {
          first = new LeaseException("closing Leasehold failed", e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** Closes everything after {@code failure}, which carries any failure to close as suppressed. */
  void closeAfter(RuntimeException failure) {
    try {
      closeAll();
    } catch (RuntimeException suppressed) {
      failure.addSuppressed(suppressed);
    }
  }
}
