package dev.leasehold.lease;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Argument checks shared by the request records; each message names the field and never shows
 * the value. A caller can pass a secret in any string field (an owner token as the purpose, the
 * ownership {@code ownerToken:operationId} as the operation id), so an invalid value is only
 * described: its length, and which character breaks the rule, by position and kind.
 */
final class Checks {
  private Checks() {}

  static String matches(String field, String value, Shape rule, String shape) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    if (rule.fits(value)) {
      return value;
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank");
    }
    throw new IllegalArgumentException(field + " must match " + shape + "; " + describe(value, rule.pattern()));
  }

  /** What is wrong with {@code value}, without any of its characters. */
  static String describe(String value, Pattern pattern) {
    String given = "the value given has " + value.length() + (value.length() == 1 ? " character" : " characters");
    int at = firstMisfit(value, pattern);
    if (at < 0) {
      return given + " and ends before it is complete";
    }
    return given + " and character " + (at + 1) + " (" + kind(value.charAt(at)) + ") breaks it";
  }

  /**
   * The index of the first character after which no continuation can match, or -1 if every
   * prefix still could (the value is too short). A prefix that fails without the matcher reaching
   * its end cannot be completed. The patterns here are bounded, so this stops within ~130 characters.
   */
  private static int firstMisfit(String value, Pattern pattern) {
    Matcher m = pattern.matcher(value);
    for (int end = 1; end <= value.length(); end++) {
      m.region(0, end);
      if (!m.matches() && !m.hitEnd()) {
        return end - 1;
      }
    }
    return -1;
  }

  /** The kind of a character, never the character: enough to find a typo, too little to leak a secret. */
  private static String kind(char c) {
    if (c >= 'A' && c <= 'Z') {
      return "an uppercase letter";
    }
    if (c >= 'a' && c <= 'z') {
      return "a lowercase letter";
    }
    if (c >= '0' && c <= '9') {
      return "a digit";
    }
    if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
      return "whitespace";
    }
    if (Character.isISOControl(c)) {
      return "a control character";
    }
    return c < 128 ? "punctuation or a symbol" : "a non-ASCII character";
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
