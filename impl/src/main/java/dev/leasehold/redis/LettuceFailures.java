package dev.leasehold.redis;

import dev.leasehold.redis.GatewayException.Failure;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.util.List;
import java.util.concurrent.ExecutionException;

/**
 * Sorts lettuce's exceptions by what they prove about the command (see REDIS-NOTES.md section 1).
 * {@code NOT_SENT}, {@code OVERLOADED} and {@code REFUSED} are only returned where lettuce's code
 * or the server's own refusal proves the command did not run; everything else is {@code AMBIGUOUS}.
 *
 * <p>This class is stateless and threadsafe.
 */
final class LettuceFailures {
  /** Refusals Redis sends from {@code processCommand}, before the command runs, that pass soon. */
  private static final List<String> OVERLOADED_PREFIXES =
      List.of("BUSY ", "OOM ", "LOADING ", "TRYAGAIN ", "MASTERDOWN ");
  /** Refusals before running that wait on an operator or a failover. Shebang scripts check them first. */
  private static final List<String> REFUSED_PREFIXES =
      List.of("READONLY ", "CLUSTERDOWN ", "NOREPLICAS ", "MISCONF ", "NOPERM ", "NOAUTH ");
  /** lettuce's messages for commands rejected in {@code DefaultEndpoint.validateWrite}, never written. */
  private static final List<String> NOT_SENT_MESSAGES =
      List.of("Currently not connected. Commands are rejected.", "Connection is closed");
  /** lettuce's messages for commands refused by its own bounded queues, never written. */
  private static final List<String> QUEUE_FULL_MESSAGES =
      List.of("Request queue size exceeded", "Command buffer size exceeded", "Internal stack size exceeded");

  private LettuceFailures() {}

  static GatewayException classify(Throwable thrown) {
    Throwable e = thrown instanceof ExecutionException && thrown.getCause() != null ? thrown.getCause() : thrown;
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    if (e instanceof RedisCommandInterruptedException) {
      // lettuce cleared the flag when it caught the InterruptedException; give it back.
      Thread.currentThread().interrupt();
      return new GatewayException(Failure.AMBIGUOUS, "interrupted while waiting for the reply", e);
    }
    if (e instanceof RedisCommandTimeoutException) {
      return new GatewayException(Failure.AMBIGUOUS, "no reply in time: " + message, e);
    }
    if (e instanceof RedisConnectionException) {
      return new GatewayException(Failure.NOT_SENT, "could not connect: " + message + why(e), e);
    }
    if (e instanceof RedisCommandExecutionException) {
      if (startsWithAny(message, OVERLOADED_PREFIXES)) {
        return new GatewayException(Failure.OVERLOADED, "server refused: " + message, e);
      }
      if (startsWithAny(message, REFUSED_PREFIXES)) {
        return new GatewayException(Failure.REFUSED, "server refused: " + message, e);
      }
      return new GatewayException(Failure.AMBIGUOUS, "script failed: " + message, e);
    }
    if (e instanceof RedisException) {
      if (NOT_SENT_MESSAGES.contains(message)) {
        return new GatewayException(Failure.NOT_SENT, message, e);
      }
      if (startsWithAny(message, QUEUE_FULL_MESSAGES)) {
        return new GatewayException(Failure.OVERLOADED, "client queue full: " + message, e);
      }
    }
    return new GatewayException(Failure.AMBIGUOUS, message, e);
  }

  /**
   * The deepest cause's message, when it says more: lettuce's own is only "Unable to connect to
   * host:port", while the reason (a refused connection, an untrusted server certificate) is at the
   * bottom of the chain. Never a password: lettuce's and the JDK's connect errors carry none.
   */
  private static String why(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e || root.getMessage() == null ? "" : " (" + root.getMessage() + ")";
  }

  private static boolean startsWithAny(String message, List<String> prefixes) {
    for (String prefix : prefixes) {
      if (message.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
