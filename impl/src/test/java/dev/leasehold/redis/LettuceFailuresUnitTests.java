package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.GatewayException.Failure;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisReadOnlyException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.Arguments;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Defect 5: every exception was Indeterminate; now only what proves "not applied" is not. */
class LettuceFailuresUnitTests {
  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(new RedisException("Currently not connected. Commands are rejected."), Failure.NOT_SENT),
        Arguments.of(new RedisException("Connection is closed"), Failure.NOT_SENT),
        Arguments.of(new RedisConnectionException("Unable to connect"), Failure.NOT_SENT),
        Arguments.of(new RedisException("Request queue size exceeded: 10000. Commands are not accepted until the queue size drops."), Failure.OVERLOADED),
        Arguments.of(new RedisBusyException("BUSY Redis is busy running a script."), Failure.OVERLOADED),
        Arguments.of(new RedisCommandExecutionException("OOM command not allowed when used memory > 'maxmemory'."), Failure.OVERLOADED),
        Arguments.of(new RedisLoadingException("LOADING Redis is loading the dataset in memory"), Failure.OVERLOADED),
        Arguments.of(new RedisCommandExecutionException("TRYAGAIN Multiple keys request during rehashing of slot"), Failure.OVERLOADED),
        Arguments.of(new RedisCommandExecutionException("MASTERDOWN Link with MASTER is down"), Failure.OVERLOADED),
        Arguments.of(new RedisReadOnlyException("READONLY You can't write against a read only replica."), Failure.REFUSED),
        Arguments.of(new RedisCommandExecutionException("CLUSTERDOWN The cluster is down"), Failure.REFUSED),
        Arguments.of(new RedisCommandExecutionException("NOPERM this user has no permission to run set on the lease keys"),
            Failure.REFUSED),
        // What Redis 7 says for a script's inner command the ACL refuses: it may follow a write.
        Arguments.of(new RedisCommandExecutionException(
            "ERR The user executing the script can't run this command or subcommand script: f, on @user_script:14."),
            Failure.AMBIGUOUS),
        Arguments.of(new RedisCommandExecutionException("BUSYKEY Target key name already exists."), Failure.AMBIGUOUS),
        Arguments.of(new RedisCommandTimeoutException("Command timed out after 200 ms"), Failure.AMBIGUOUS),
        Arguments.of(new RedisException("Connection disconnected"), Failure.AMBIGUOUS),
        Arguments.of(new RedisException("Connection closed"), Failure.AMBIGUOUS),
        Arguments.of(new RedisCommandExecutionException("ERR Error running script (call to f_...): user_script:1: attempt to compare"), Failure.AMBIGUOUS),
        Arguments.of(new ExecutionException(new RedisBusyException("BUSY x")), Failure.OVERLOADED),
        Arguments.of(new IllegalStateException("decode"), Failure.AMBIGUOUS));
  }

  @Test
  void aConnectionFailure_namesItsDeepestCause() {
    // lettuce's own message says only where; the reason (here an untrusted certificate) is at the bottom.
    GatewayException e = LettuceFailures.classify(new RedisConnectionException("Unable to connect to 127.0.0.1:6380",
        new RuntimeException("handshake", new java.security.cert.CertificateException(
            "unable to find valid certification path to requested target"))));
    assertEquals(Failure.NOT_SENT, e.failure());
    assertEquals("could not connect: Unable to connect to 127.0.0.1:6380 (unable to find valid certification path to"
        + " requested target)", e.getMessage());
    assertEquals("could not connect: Unable to connect", LettuceFailures.classify(
        new RedisConnectionException("Unable to connect")).getMessage(), "nothing added without a cause");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("cases")
  void classifiesByWhatTheFailureProves(Throwable thrown, Failure expected) {
    GatewayException e = LettuceFailures.classify(thrown);
    assertEquals(expected, e.failure());
    assertEquals(expected != Failure.AMBIGUOUS, e.provablyNotApplied());
  }

  @Test
  void interruptionIsAmbiguousAndRestoresTheFlag() {
    assertFalse(Thread.currentThread().isInterrupted());
    GatewayException e = LettuceFailures.classify(new RedisCommandInterruptedException(new InterruptedException()));
    assertEquals(Failure.AMBIGUOUS, e.failure());
    assertTrue(Thread.currentThread().isInterrupted());
  }
}
