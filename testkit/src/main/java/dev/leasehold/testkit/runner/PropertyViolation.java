package dev.leasehold.testkit.runner;

/**
 * A property failed. {@link #property()} names it, so that shrinking keeps a chain only when it
 * still fails the same property (and does not slip to an unrelated failure).
 *
 * <p>This class is immutable.
 */
public final class PropertyViolation extends AssertionError {
  private static final long serialVersionUID = 1L;
  private final String property;

  public PropertyViolation(String property, String message) {
    super(property + ": " + message);
    this.property = property;
  }

  public String property() {
    return property;
  }

  /** Fails {@code property} with {@code message} unless {@code ok}. */
  public static void check(boolean ok, String property, String message) {
    if (!ok) {
      throw new PropertyViolation(property, message);
    }
  }
}
