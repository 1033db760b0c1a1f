package dev.leasehold.testkit.blackbox;

import java.util.Map;

/**
 * The few reads a {@link LockLibrary} needs to report its lock's state, on the kit's own
 * connection to the server.
 */
public interface ServerView {
  /** The string at {@code key}, or null. */
  String get(String key);

  /** The fields of the hash at {@code key} (empty when there is none). */
  Map<String, String> hgetall(String key);

  /** PTTL: ms left, -1 without expiry, -2 when the key does not exist. */
  long pttl(String key);
}
