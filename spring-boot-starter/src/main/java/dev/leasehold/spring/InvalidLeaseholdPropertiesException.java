package dev.leasehold.spring;

/**
 * A {@code leasehold.*} property that cannot work, found at start-up before any connection; the
 * message names the property and what it must be, and never shows a URI (it may hold a password).
 * {@link InvalidLeaseholdPropertiesFailureAnalyzer} turns it into Spring Boot's start-up report.
 *
 * <p>This class is immutable.
 */
public final class InvalidLeaseholdPropertiesException extends IllegalArgumentException {
  private final String property;

  InvalidLeaseholdPropertiesException(String property, String problem, Throwable cause) {
    super(property + ": " + problem, cause);
    this.property = property;
  }

  /** The property to fix, e.g. {@code leasehold.namespace}. */
  public String property() {
    return property;
  }
}
