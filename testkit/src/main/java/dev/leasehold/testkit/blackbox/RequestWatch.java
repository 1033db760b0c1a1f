package dev.leasehold.testkit.blackbox;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Watches the bytes a client sends through its proxy for one key named as a whole RESP argument
 * ({@code $<len>\r\n<key>\r\n}), and keeps when each was seen. A key split across two reads of a
 * connection is still found: the tail of the previous read is kept per connection.
 *
 * <p>This class is threadsafe.
 */
final class RequestWatch {
  private final byte[] needle;
  private final Map<Object, byte[]> tails = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Sent> seen = new ConcurrentLinkedQueue<>();

  RequestWatch(String key) {
    this.needle = ("$" + key.getBytes(StandardCharsets.UTF_8).length + "\r\n" + key + "\r\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Called by the proxy with each chunk a client sent on {@code connection}. */
  void accept(Object connection, byte[] chunk) {
    long at = System.nanoTime();
    byte[] tail = tails.getOrDefault(connection, new byte[0]);
    byte[] data = new byte[tail.length + chunk.length];
    System.arraycopy(tail, 0, data, 0, tail.length);
    System.arraycopy(chunk, 0, data, tail.length, chunk.length);
    // Occurrences that end inside the new chunk only: one ending in the tail was counted before.
    for (int i = Math.max(0, tail.length - needle.length + 1); i + needle.length <= data.length; i++) {
      if (Arrays.equals(data, i, i + needle.length, needle, 0, needle.length)) {
        seen.add(new Sent(at, commandBefore(data, i)));
      }
    }
    int keep = Math.min(data.length, needle.length - 1);
    tails.put(connection, Arrays.copyOfRange(data, data.length - keep, data.length));
  }

  /**
   * The requests that named the key at or after {@code fromNanos}: each command's name and how
   * long after {@code fromNanos} the client sent it.
   */
  List<String> since(long fromNanos) {
    return seen.stream().filter(s -> s.at - fromNanos >= 0)
        .map(s -> s.command + " +" + TimeUnit.NANOSECONDS.toMillis(s.at - fromNanos) + " ms").toList();
  }

  /**
   * The name of the command whose arguments include the match at {@code at}: the first argument of
   * the last RESP array that starts before it ("?" when that start is not in {@code data}). Only
   * the name is kept; arguments may be secrets.
   */
  private static String commandBefore(byte[] data, int at) {
    for (int i = at - 1; i >= 0; i--) {
      if (data[i] == '*' && (i == 0 || data[i - 1] == '\n')) {
        String head = new String(data, i, Math.min(data.length - i, 64), StandardCharsets.US_ASCII);
        String[] lines = head.split("\r\n");
        // Only a command name is shown: anything else may be an argument, and arguments may be secrets.
        return lines.length > 2 && lines[2].matches("[A-Za-z]{1,20}") ? lines[2].toUpperCase() : "?";
      }
    }
    return "?";
  }

  private record Sent(long at, String command) {}
}
