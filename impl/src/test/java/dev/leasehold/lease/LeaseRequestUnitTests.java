package dev.leasehold.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LeaseRequestUnitTests {
  static final String TOKEN = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  static final String DIGEST = "sha256:" + "a".repeat(64);
  static final LeaseAttempt ATTEMPT = new LeaseAttempt(TOKEN, "op-1");

  static Stream<Arguments> badRequests() {
    Duration s = Duration.ofSeconds(1);
    return Stream.of(
        Arguments.of("purpose", (Runnable) () -> new LeaseRequest(null, DIGEST, Duration.ZERO, s, ATTEMPT)),
        Arguments.of("purpose", (Runnable) () -> new LeaseRequest(" ", DIGEST, Duration.ZERO, s, ATTEMPT)),
        Arguments.of("purpose", (Runnable) () -> new LeaseRequest("Orders", DIGEST, Duration.ZERO, s, ATTEMPT)),
        Arguments.of("purpose", (Runnable) () -> new LeaseRequest("a".repeat(65), DIGEST, Duration.ZERO, s, ATTEMPT)),
        Arguments.of("purpose", (Runnable) () -> new LeaseRequest("a{b}", DIGEST, Duration.ZERO, s, ATTEMPT)),
        Arguments.of("resourceDigest", (Runnable) () -> new LeaseRequest("p", null, Duration.ZERO, s, ATTEMPT)),
        Arguments.of("resourceDigest", (Runnable) () -> new LeaseRequest("p", "", Duration.ZERO, s, ATTEMPT)),
        Arguments.of("resourceDigest", (Runnable) () -> new LeaseRequest("p", "order-42", Duration.ZERO, s, ATTEMPT)),
        Arguments.of("resourceDigest", (Runnable) () -> new LeaseRequest("p", "sha256:" + "A".repeat(64), Duration.ZERO, s, ATTEMPT)),
        Arguments.of("resourceDigest", (Runnable) () -> new LeaseRequest("p", DIGEST + "0", Duration.ZERO, s, ATTEMPT)),
        Arguments.of("waitTimeout", (Runnable) () -> new LeaseRequest("p", DIGEST, null, s, ATTEMPT)),
        Arguments.of("waitTimeout", (Runnable) () -> new LeaseRequest("p", DIGEST, Duration.ofMillis(-1), s, ATTEMPT)),
        Arguments.of("waitTimeout", (Runnable) () -> new LeaseRequest("p", DIGEST, Duration.ofDays(365), s, ATTEMPT)),
        Arguments.of("leaseTtl", (Runnable) () -> new LeaseRequest("p", DIGEST, Duration.ZERO, null, ATTEMPT)),
        Arguments.of("leaseTtl", (Runnable) () -> new LeaseRequest("p", DIGEST, Duration.ZERO, Duration.ZERO, ATTEMPT)),
        Arguments.of("leaseTtl", (Runnable) () -> new LeaseRequest("p", DIGEST, Duration.ZERO, Duration.ofSeconds(-5), ATTEMPT)),
        Arguments.of("leaseTtl", (Runnable) () -> new LeaseRequest("p", DIGEST, Duration.ZERO, Duration.ofNanos(10), ATTEMPT)),
        Arguments.of("leaseTtl", (Runnable) () -> new LeaseRequest("p", DIGEST, Duration.ZERO, Duration.ofDays(400), ATTEMPT)),
        Arguments.of("attempt", (Runnable) () -> new LeaseRequest("p", DIGEST, Duration.ZERO, s, null)),
        Arguments.of("operationId", (Runnable) () -> new LeaseAttempt(TOKEN, null)),
        Arguments.of("operationId", (Runnable) () -> new LeaseAttempt(TOKEN, "  ")),
        Arguments.of("operationId", (Runnable) () -> new LeaseAttempt(TOKEN, "a:b")),
        Arguments.of("operationId", (Runnable) () -> new LeaseAttempt(TOKEN, "x".repeat(129))),
        Arguments.of("ownerToken", (Runnable) () -> new LeaseAttempt("short", "op")),
        Arguments.of("ownerToken", (Runnable) () -> new LeaseAttempt(null, "op")),
        Arguments.of("purpose", (Runnable) () -> new LeaseInspection("", DIGEST, ATTEMPT)),
        Arguments.of("attempt", (Runnable) () -> new LeaseInspection("p", DIGEST, null)));
  }

  @ParameterizedTest(name = "{index}: rejects bad {0}")
  @MethodSource("badRequests")
  void badInput_isRejectedWithTheFieldNamed(String field, Runnable construct) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construct::run);
    assertTrue(e.getMessage().startsWith(field), () -> "message should name " + field + ": " + e.getMessage());
  }

  @Test
  void ownerToken_neverInToStringOrMessages() {
    LeaseRequest request = LeaseRequest.once("p", DIGEST, Duration.ofSeconds(1), ATTEMPT);
    assertFalse(ATTEMPT.toString().contains(TOKEN));
    assertFalse(request.toString().contains(TOKEN));
    assertTrue(ATTEMPT.toString().contains("op-1"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new LeaseAttempt(TOKEN + "!", "op"));
    assertFalse(e.getMessage().contains(TOKEN));
  }

  static String rejected(Runnable construct) {
    return assertThrows(IllegalArgumentException.class, construct::run).getMessage();
  }

  /** An invalid value is described (length, where and what kind of character breaks the rule), never shown. */
  @Test
  void invalidValues_areDescribed_neverEchoed() {
    Duration s = Duration.ofSeconds(1);
    assertEquals("purpose must match [a-z0-9][a-z0-9-]{0,63}; the value given has 6 characters"
        + " and character 1 (an uppercase letter) breaks it",
        rejected(() -> new LeaseRequest("Orders", DIGEST, Duration.ZERO, s, ATTEMPT)));
    assertEquals("purpose must match [a-z0-9][a-z0-9-]{0,63}; the value given has 65 characters"
        + " and character 65 (a lowercase letter) breaks it",
        rejected(() -> new LeaseRequest("a".repeat(65), DIGEST, Duration.ZERO, s, ATTEMPT)));
    assertEquals("resourceDigest must match sha256:<64 lowercase hex>; the value given has 10 characters"
        + " and ends before it is complete",
        rejected(() -> new LeaseRequest("p", "sha256:abc", Duration.ZERO, s, ATTEMPT)));
    assertEquals("resourceDigest must match sha256:<64 lowercase hex>; the value given has 72 characters"
        + " and character 72 (a digit) breaks it",
        rejected(() -> new LeaseRequest("p", DIGEST + "0", Duration.ZERO, s, ATTEMPT)));
    assertTrue(rejected(() -> new LeaseAttempt(TOKEN, "op:1")).endsWith("character 3 (punctuation or a symbol) breaks it"));
    assertTrue(rejected(() -> new LeaseAttempt(TOKEN, "op 1")).endsWith("character 3 (whitespace) breaks it"));
    assertTrue(rejected(() -> new LeaseAttempt(TOKEN, "op\u00e91")).endsWith("character 3 (a non-ASCII character) breaks it"));
    assertTrue(rejected(() -> new LeaseAttempt(TOKEN, "op\u00011")).endsWith("character 3 (a control character) breaks it"));
    assertEquals("ownerToken must match [A-Za-z0-9_-]{32} (24 random bytes, Base64URL); the value given has 9 characters"
        + " and ends before it is complete", rejected(() -> new LeaseAttempt("secret-ab", "op")));
    assertEquals("operationId must match [A-Za-z0-9][A-Za-z0-9._-]{0,127}; the value given has 1 character"
        + " and character 1 (punctuation or a symbol) breaks it", rejected(() -> new LeaseAttempt(TOKEN, "-")));
    String longSecret = "x".repeat(200) + "!";
    assertFalse(rejected(() -> new LeaseRequest(longSecret, DIGEST, Duration.ZERO, s, ATTEMPT)).contains("xxxx"));
  }

  @Test
  void anAttemptWhoseOperationIdIsItsOwnToken_isRejected() {
    // The operation id is printed (toString, Indeterminate, logs); the token must not be, even there.
    assertEquals("operationId must not be the owner token: the operation id is printed, the token is a secret",
        rejected(() -> new LeaseAttempt(TOKEN, TOKEN)));
  }

  @Test
  void attempts_areEqualByTokenAndOperation() {
    assertEquals(ATTEMPT, new LeaseAttempt(TOKEN, "op-1"));
    assertFalse(ATTEMPT.equals(new LeaseAttempt(TOKEN, "op-2")));
    assertEquals(TOKEN + ":op-1", ATTEMPT.ownership());
  }
}
