package dev.leasehold.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The loop that checks identifiers ({@link Shape#fits}) gives the regex's answer: for each rule
 * the API uses, against the regex the rule was first written as, on 200,000 seeded strings built
 * near its edges (lengths around the bounds, valid values with one character changed, characters
 * just outside each range).
 */
class ShapeUnitTests {
  private static final Map<Shape, Pattern> RULES = Map.of(
      LeaseAttempt.OWNER_TOKEN, Pattern.compile("[A-Za-z0-9_-]{32}"),
      LeaseAttempt.OPERATION_ID, Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}"),
      LeaseRequest.PURPOSE, Pattern.compile("[a-z0-9][a-z0-9-]{0,63}"),
      LeaseRequest.DIGEST, Pattern.compile("sha256:[0-9a-f]{64}"));
  /** Every range's ends and the characters next to them, the separators, and a few outside ASCII. */
  private static final String ALPHABET = "azAZ09`{@[/:_-.s ha256\u0000\u007f\u00e9\u0430\t";

  @Test
  void fitsAgreesWithTheRegexItReplaced() {
    SplittableRandom r = new SplittableRandom(20261204);
    for (Map.Entry<Shape, Pattern> rule : RULES.entrySet()) {
      int agreedTrue = 0;
      for (int k = 0; k < 50_000; k++) {
        String s = k % 2 == 0 ? random(r) : nearlyValid(r, rule.getValue());
        boolean expected = rule.getValue().matcher(s).matches();
        assertEquals(expected, rule.getKey().fits(s), () -> rule.getValue() + " on a string of " + s.length());
        assertEquals(expected, rule.getKey().pattern().matcher(s).matches(), () -> "the rule's own regex, " + rule.getValue());
        agreedTrue += expected ? 1 : 0;
      }
      int valid = agreedTrue;
      assertTrue(valid > 1_000, () -> rule.getValue() + ": too few valid strings tried (" + valid + ")");
    }
  }

  @Test
  void edges() {
    assertTrue(LeaseRequest.PURPOSE.fits("a"));
    assertTrue(LeaseRequest.PURPOSE.fits("a" + "-".repeat(63)));
    assertFalse(LeaseRequest.PURPOSE.fits("a" + "-".repeat(64)), "65 characters");
    assertFalse(LeaseRequest.PURPOSE.fits(""));
    assertFalse(LeaseRequest.PURPOSE.fits("-a"), "first character from the rest's set only");
    assertTrue(LeaseRequest.DIGEST.fits("sha256:" + "0f".repeat(32)));
    assertFalse(LeaseRequest.DIGEST.fits("sha256:" + "0F".repeat(32)), "uppercase hex");
    assertFalse(LeaseRequest.DIGEST.fits("sha257:" + "0f".repeat(32)));
  }

  private static String random(SplittableRandom r) {
    int n = r.nextInt(5) == 0 ? r.nextInt(140) : r.nextInt(60, 75);
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      b.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
    }
    return b.toString();
  }

  /** A valid value of {@code p} (built by hand for each rule), often with one character or the length changed. */
  private static String nearlyValid(SplittableRandom r, Pattern p) {
    String text = p.pattern();
    String prefix = text.startsWith("sha256:") ? "sha256:" : "";
    String body = text.contains("0-9a-f") ? "0123456789abcdef" : text.endsWith("{32}") ? "aZ09_-"
        : text.contains("A-Z") ? "aZ09_-." : "az09-";
    int length = text.endsWith("{32}") ? 32 : text.endsWith("{64}") ? 64 : 1 + r.nextInt(text.contains("127") ? 128 : 64);
    length += r.nextInt(4) == 0 ? r.nextInt(-2, 3) : 0;
    StringBuilder b = new StringBuilder(prefix);
    for (int i = 0; i < Math.max(0, length); i++) {
      b.append(body.charAt(r.nextInt(body.length())));
    }
    if (r.nextBoolean() && b.length() > 0) {
      b.setCharAt(r.nextInt(b.length()), ALPHABET.charAt(r.nextInt(ALPHABET.length())));
    }
    return b.toString();
  }
}
