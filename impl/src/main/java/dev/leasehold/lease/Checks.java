package dev.leasehold.lease;

import java.time.Duration;
import java.util.regex.Pattern;

/** Argument checks shared by the request records; each message names the field. */
final class Checks {
  private Checks() {}

  static String matches(String field, String value, Pattern pattern, String shape) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank");
    }
    if (!pattern.matcher(value).matches()) {
      // The value itself is echoed only when short, so a pasted secret does not end up in a log.
      String shown = value.length() <= 80 ? " but was '" + value + "'" : " (length " + value.length() + ")";
      throw new IllegalArgumentException(field + " must match " + shape + shown);
    }
    return value;
  }

  static Duration within(String field, Duration value, Duration min, boolean minInclusive, Duration max) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    int low = value.compareTo(min);
    if (low < 0 || (!minInclusive && low == 0)) {
      throw new IllegalArgumentException(
          field + " must be " + (minInclusive ? ">= " : "> ") + min + " but was " + value);
    }
    if (value.compareTo(max) > 0) {
      throw new IllegalArgumentException(field + " must be <= " + max + " but was " + value);
    }
    return value;
  }

  static <T> T notNull(String field, T value) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    return value;
  }
}
