package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.*;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.MeteredLeasePort;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.GatewayException.Failure;
import dev.leasehold.testing.FakeRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The owner token and the ownership value ({@code ownerToken:operationId}) are secrets: whatever
 * string field a caller passes them in, the exception that rejects them names the field and
 * describes the value, never shows it. To cover a new field, add one {@link Field} to
 * {@link #fields()}.
 */
class SecretsStayOutOfMessagesUnitTests {
  static final String DIGEST = ResourceDigests.sha256("secret-test");
  static final FakeRedis REDIS = new FakeRedis(FakeRedis.Clock.virtual());
  static final RedisLeaseAdapter ADAPTER = RedisLeaseAdapter.builder(REDIS).build();
  /** A valid attempt for the arguments that are not under test. */
  static final LeaseAttempt VALID = LeaseHandleFixtures.attempt();
  /** A real attempt: its token comes from newAttempt with a SecureRandom. */
  static final LeaseAttempt REAL = ADAPTER.newAttempt("op");
  /** Also real, but its first byte makes the token start with '-', so it is no legal operation id either. */
  static final LeaseAttempt DASHED = RedisLeaseAdapter.builder(REDIS).random(leadingDash()).build().newAttempt("op");

  static SecureRandom leadingDash() {
    return new SecureRandom() {
      @Override
      public void nextBytes(byte[] bytes) {
        new Random(42).nextBytes(bytes);
        bytes[0] = (byte) 0xF8; // 111110.. -> Base64URL index 62, '-'
      }
    };
  }

  /**
   * A string parameter of a public entry point, every other argument valid.
   *
   * @param names the field the message must start with ({@code a|b} when either may be checked first)
   * @param legal the field's own rule: a secret that happens to be a legal value there is not rejected
   *     (null: no secret is legal there)
   */
  record Field(String entryPoint, String names, Pattern legal, Consumer<String> call) {
    @Override
    public String toString() {
      return entryPoint;
    }
  }

  static final Pattern OPERATION_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  static final Pattern OWNER_TOKEN = Pattern.compile("[A-Za-z0-9_-]{32}");
  static final Pattern PURPOSE = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
  static final Pattern NAMESPACE = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
  static final Pattern DIGEST_SHAPE = Pattern.compile("sha256:[0-9a-f]{64}");

  static List<Field> fields() {
    Duration s = Duration.ofSeconds(1);
    return List.of(
        new Field("newAttempt(operationId)", "operationId", OPERATION_ID, ADAPTER::newAttempt),
        new Field("LeaseAttempt.validOperationId(operationId)", "operationId", OPERATION_ID,
            LeaseAttempt::validOperationId),
        new Field("new LeaseAttempt(ownerToken, op)", "ownerToken", OWNER_TOKEN, v -> new LeaseAttempt(v, "op")),
        new Field("new LeaseAttempt(token, operationId)", "operationId", OPERATION_ID,
            v -> new LeaseAttempt(VALID.ownerToken(), v)),
        new Field("new LeaseAttempt(op, secret): swapped", "operationId|ownerToken", null, v -> new LeaseAttempt("op", v)),
        new Field("new LeaseAttempt(secret, secret)", "operationId|ownerToken", null, v -> new LeaseAttempt(v, v)),
        new Field("new LeaseRequest(purpose, ...)", "purpose", PURPOSE,
            v -> new LeaseRequest(v, DIGEST, Duration.ZERO, s, VALID)),
        new Field("new LeaseRequest(p, resourceDigest, ...)", "resourceDigest", DIGEST_SHAPE,
            v -> new LeaseRequest("p", v, Duration.ZERO, s, VALID)),
        new Field("LeaseRequest.once(purpose, ...)", "purpose", PURPOSE, v -> LeaseRequest.once(v, DIGEST, s, VALID)),
        new Field("LeaseRequest.once(p, resourceDigest, ...)", "resourceDigest", DIGEST_SHAPE,
            v -> LeaseRequest.once("p", v, s, VALID)),
        new Field("new LeaseInspection(purpose, ...)", "purpose", PURPOSE, v -> new LeaseInspection(v, DIGEST, VALID)),
        new Field("new LeaseInspection(p, resourceDigest, ...)", "resourceDigest", DIGEST_SHAPE,
            v -> new LeaseInspection("p", v, VALID)),
        new Field("RedisLeaseAdapter.keys(purpose, ...)", "purpose", PURPOSE, v -> ADAPTER.keys(v, DIGEST)),
        new Field("RedisLeaseAdapter.keys(p, resourceDigest)", "resourceDigest", DIGEST_SHAPE, v -> ADAPTER.keys("p", v)),
        new Field("RedisLeaseAdapter.builder().namespace()", "namespace", NAMESPACE,
            v -> RedisLeaseAdapter.builder(REDIS).namespace(v).build()),
        // Settings are checked before anything is opened, so nothing connects to this port.
        new Field("RedisLeases.builder().namespace()", "namespace", NAMESPACE,
            v -> RedisLeases.builder("redis://127.0.0.1:1").namespace(v).build()));
  }

  static Stream<Arguments> secretsInEveryField() {
    List<Arguments> cases = new ArrayList<>();
    for (Field field : fields()) {
      for (LeaseAttempt a : List.of(REAL, DASHED)) {
        for (String secret : List.of(a.ownerToken(), a.ownership())) {
          if (field.legal() == null || !field.legal().matcher(secret).matches()) {
            String kind = (secret.contains(":") ? "ownership" : "owner token") + (a == DASHED ? " (leading '-')" : "");
            cases.add(Arguments.of(field, kind, secret, a));
          }
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} given the {1}")
  @MethodSource("secretsInEveryField")
  void aSecretInAnyField_isRejectedWithTheFieldNamed_andNeverShown(Field field, String kind, String secret, LeaseAttempt a) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> field.call().accept(secret));
    String message = e.getMessage();
    assertTrue(message.matches("^(" + field.names() + ") .*"), () -> "should name " + field.names() + ": " + message);
    assertNoSecret(message, a);
  }

  /** Neither secret, nor any 8 characters of the token (no prefix, no "first characters were ..."). */
  static void assertNoSecret(String text, LeaseAttempt a) {
    assertFalse(text.contains(a.ownership()), () -> "ownership shown: " + text);
    assertFalse(text.contains(a.ownerToken()), () -> "owner token shown: " + text);
    String token = a.ownerToken();
    for (int i = 0; i + 8 <= token.length(); i++) {
      String part = token.substring(i, i + 8);
      assertFalse(text.contains(part), () -> "part of the owner token shown: " + text);
    }
  }

  /** The filter on legal values must not hollow the test out: the dashed attempt's secrets are illegal everywhere but as an ownerToken. */
  @Test
  void everyFieldIsTriedWithBothSecrets() {
    for (Field field : fields()) {
      long tried = secretsInEveryField()
          .filter(c -> c.get()[0].toString().equals(field.entryPoint()) && c.get()[3] == DASHED).count();
      assertEquals(field.legal() == OWNER_TOKEN ? 1 : 2, tried, field::entryPoint);
    }
  }

  /**
   * The values built from a real attempt, printed where they can be printed: toString of the
   * attempt, request, inspection, keys, handles (plain and metered), every outcome and loss, and
   * meter ids. Log lines print exactly these, so none of them may hold the token.
   */
  @Test
  void secrets_neverReachToStringsOutcomesOrMeterTags() {
    FakeRedis.Clock clock = FakeRedis.Clock.virtual();
    FakeRedis redis = new FakeRedis(clock);
    RedisLeaseAdapter adapter = RedisLeaseAdapter.builder(redis).monotonicNanos(clock).sleeper(clock).build();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MeteredLeasePort port = new MeteredLeasePort(adapter, registry);
    LeaseAttempt a = port.newAttempt("op");
    LeaseRequest request = LeaseRequest.once("p", DIGEST, Duration.ofSeconds(1), a);
    List<Object> printed = new ArrayList<>(List.of(a, request, LeaseInspection.of(request), adapter.keys("p", DIGEST)));

    AcquireOutcome acquired = port.tryAcquire(request);
    LeaseHandle h = assertInstanceOf(AcquireOutcome.Acquired.class, acquired).handle();
    printed.addAll(List.of(acquired, h, ((dev.leasehold.lease.MeteredLeaseHandle) h).delegate()));
    printed.add(port.tryAcquire(request));
    printed.add(port.tryAcquire(LeaseRequest.once("p", DIGEST, Duration.ofSeconds(1), port.newAttempt("other"))));
    printed.add(port.tryAcquire(LeaseRequest.once("p", DIGEST, Duration.ofSeconds(1), new LeaseAttempt(a.ownerToken(), "op2"))));
    printed.add(port.inspect(LeaseInspection.of(request)));
    printed.add(h.renew(Duration.ofSeconds(1)));
    redis.failNext("renew", Failure.NOT_SENT);
    printed.add(h.renew(Duration.ofSeconds(1)));
    redis.failNext("renew", Failure.OVERLOADED);
    printed.add(h.renew(Duration.ofSeconds(1)));
    redis.loseNextReply("renew", true);
    printed.add(h.renew(Duration.ofSeconds(1)));
    printed.add(h);
    printed.add(new LeaseWatchdog.LeaseLoss(h, LeaseState.UNKNOWN, "renewal unanswered"));
    redis.loseNextReply("release", false);
    printed.add(h.release());
    printed.add(h.release());
    LeaseAttempt b = port.newAttempt("op-b");
    redis.delete(adapter.keys("p", DIGEST));
    redis.loseNextReply("acquire", true);
    printed.add(port.tryAcquire(LeaseRequest.once("p", DIGEST, Duration.ofSeconds(1), b)));
    LeaseHandle hb = assertInstanceOf(AcquireOutcome.ReplayedSameOperation.class,
        port.tryAcquire(LeaseRequest.once("p", DIGEST, Duration.ofSeconds(1), b))).handle();
    printed.addAll(List.of(hb, hb.release()));
    registry.getMeters().forEach(m -> printed.add(m.getId()));

    for (Object o : printed) {
      assertNoSecret(String.valueOf(o), a);
      assertNoSecret(String.valueOf(o), b);
    }
  }
}
