package dev.leasehold.testkit.blackbox;

import dev.leasehold.testkit.runner.PropertyViolation;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * Judges the properties for one run: counts how often each property's precondition was met (a
 * property that passes was tested that many times, no more), remembers the first violation of each
 * (also one met while shrinking a chain that broke another property), and stops judging a property
 * once a violation of it was recorded, so that the run goes on looking for the others.
 *
 * <p>This class is threadsafe.
 */
final class Judge {
  private final Map<BlackBoxProperty, LongAdder> reached = new EnumMap<>(BlackBoxProperty.class);
  private final Set<BlackBoxProperty> found = EnumSet.noneOf(BlackBoxProperty.class);
  private final Map<BlackBoxProperty, String> firstFailure = new EnumMap<>(BlackBoxProperty.class);

  Judge() {
    for (BlackBoxProperty p : BlackBoxProperty.values()) {
      reached.put(p, new LongAdder());
    }
  }

  /** A judge of {@code property} alone: the others count as found already, so they are not judged. */
  static Judge only(BlackBoxProperty property) {
    Judge judge = new Judge();
    for (BlackBoxProperty p : BlackBoxProperty.values()) {
      if (p != property) {
        judge.found(p);
      }
    }
    return judge;
  }

  /** A step met {@code property}'s precondition. */
  void met(BlackBoxProperty property) {
    reached.get(property).increment();
  }

  /** Fails {@code property} with {@code message} unless {@code ok}, or unless it already failed. */
  void check(boolean ok, BlackBoxProperty property, String message) {
    if (!ok && !hasFound(property)) {
      synchronized (this) {
        firstFailure.putIfAbsent(property, message);
      }
      throw new PropertyViolation(property.name(), message);
    }
  }

  /** The first violation of {@code property} met anywhere in the run, if any. */
  synchronized Optional<String> firstFailure(BlackBoxProperty property) {
    return Optional.ofNullable(firstFailure.get(property));
  }

  synchronized void found(BlackBoxProperty property) {
    found.add(property);
  }

  synchronized boolean hasFound(BlackBoxProperty property) {
    return found.contains(property);
  }

  long reached(BlackBoxProperty property) {
    return reached.get(property).sum();
  }
}
