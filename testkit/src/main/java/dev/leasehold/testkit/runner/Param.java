package dev.leasehold.testkit.runner;

/**
 * One integer parameter of an action, generated uniformly in {@code min..max} and shrunk toward
 * {@code min}. Parameters are plain longs so that shrinking, printing and chain files are generic;
 * an action interprets them (for example an attempt index modulo the number of attempts).
 *
 * <p>This record is immutable.
 */
public record Param(String name, long min, long max) {
  public Param {
    if (min > max) {
      throw new IllegalArgumentException(name + ": min " + min + " > max " + max);
    }
  }
}
