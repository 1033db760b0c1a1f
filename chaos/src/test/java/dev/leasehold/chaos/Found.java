package dev.leasehold.chaos;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one property check found: the subjects that broke it (a grant, a pair of grants, a call, a
 * write), each counted once with its first finding in words, and the worst excess seen.
 *
 * <p>This class is not threadsafe; one check fills it.
 */
final class Found {
  /** Subject to its first finding, in the order found. */
  private final Map<String, String> bySubject = new LinkedHashMap<>();
  private long worstNs;

  /** Counts {@code subject} once, with its first finding; keeps the largest excess. */
  void add(String subject, long excessNs, String finding) {
    worstNs = Math.max(worstNs, excessNs);
    bySubject.putIfAbsent(subject, finding);
  }

  /** This and {@code other} as one count (a subject both found counts once). */
  Found plus(Found other) {
    Found sum = new Found();
    sum.worstNs = Math.max(worstNs, other.worstNs);
    sum.bySubject.putAll(bySubject);
    other.bySubject.forEach(sum.bySubject::putIfAbsent);
    return sum;
  }

  int count() {
    return bySubject.size();
  }

  long worstMs() {
    return worstNs / 1_000_000;
  }

  Set<String> subjects() {
    return Set.copyOf(bySubject.keySet());
  }

  List<String> findings() {
    return List.copyOf(bySubject.values());
  }
}
