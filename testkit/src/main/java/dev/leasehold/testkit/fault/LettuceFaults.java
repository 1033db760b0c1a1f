package dev.leasehold.testkit.fault;

import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.LettuceLeaseGateway;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisReadOnlyException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;

/**
 * What the client is told when a {@link Fault} hits a call: one of the exceptions lettuce raises in
 * that situation, of the type and with the message lettuce gives it (through its public
 * constructors: the kit runs beside whatever lettuce version a user's build resolves), then
 * sorted by the gateway's real mapping ({@link LettuceLeaseGateway#failureOf}). So every chain judges
 * that mapping too: a timeout it took for "not sent" is a call the twin knows may have run.
 *
 * <p>The fault says what happened on the server; the shape only how the client heard of it.
 *
 * <p>This class is stateless.
 */
final class LettuceFaults {
  /** Sent, no reply: the command may have run (LOSE_REPLY, TIMEOUT). */
  private static final List<Supplier<RuntimeException>> NO_REPLY = List.of(
      () -> new RedisCommandTimeoutException("Command timed out after 1 second(s)"),
      () -> new RedisCommandTimeoutException("Command timed out after 250 millisecond(s)"),
      // lettuce's text for a command in flight when the connection closed.
      () -> new RedisException("Connection closed"),
      // A command lettuce cancelled when the connection dropped: written or not, it cannot tell.
      CancellationException::new,
      // An I/O error on the channel, as the sync API hands it on.
      () -> new RedisException(new IOException("Connection reset by peer")));

  /** Never written (DefaultEndpoint.validateWrite, or no connection at all). */
  private static final List<Supplier<RuntimeException>> NOT_SENT = List.of(
      () -> new RedisException("Currently not connected. Commands are rejected."),
      () -> new RedisException("Connection is closed"),
      () -> new RedisConnectionException("Unable to connect to localhost/127.0.0.1:6379",
          new ConnectException("Connection refused")));

  /** Refused before running, for a while (the server's processCommand, or lettuce's full queue). */
  private static final List<Supplier<RuntimeException>> OVERLOADED = List.of(
      () -> new RedisBusyException(
          "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."),
      () -> new RedisLoadingException("LOADING Redis is loading the dataset in memory"),
      () -> new RedisCommandExecutionException("OOM command not allowed when used memory > 'maxmemory'."),
      () -> new RedisCommandExecutionException("TRYAGAIN Multiple keys request during rehashing of slot"),
      () -> new RedisCommandExecutionException(
          "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."),
      () -> new RedisException("Request queue size exceeded: 10000. Commands are not accepted until the queue size drops."));

  /** Refused before running, until someone acts (an operator, a failover). */
  private static final List<Supplier<RuntimeException>> LASTING = List.of(
      () -> new RedisCommandExecutionException("NOPERM User leasehold has no permissions to run the 'evalsha' command"),
      () -> new RedisReadOnlyException("READONLY You can't write against a read only replica."),
      () -> new RedisCommandExecutionException("CLUSTERDOWN The cluster is down"),
      () -> new RedisCommandExecutionException("NOREPLICAS Not enough good replicas to write."),
      () -> new RedisCommandExecutionException("MISCONF Redis is configured to save RDB snapshots, but it's"
          + " currently unable to persist to disk. Commands that may modify the data set are disabled."),
      () -> new RedisCommandExecutionException("NOAUTH Authentication required."));

  private static final Map<Fault, List<Supplier<RuntimeException>>> SHAPES = Map.of(
      Fault.LOSE_REPLY, NO_REPLY,
      Fault.TIMEOUT, NO_REPLY,
      Fault.REFUSE_BEFORE_SEND, NOT_SENT,
      Fault.REFUSE, OVERLOADED,
      Fault.REFUSE_LASTING, LASTING);

  private LettuceFaults() {}

  /**
   * The failure the gateway throws for {@code fault}, the {@code n}th shape of it (a chain counts
   * its faults, so every shape comes up and a replay meets the same ones).
   */
  static GatewayException failure(Fault fault, long n) {
    List<Supplier<RuntimeException>> shapes = shapesOf(fault);
    return LettuceLeaseGateway.failureOf(shapes.get((int) Math.floorMod(n, (long) shapes.size())).get());
  }

  /** How many shapes {@code fault} takes in turn. */
  static int shapes(Fault fault) {
    return shapesOf(fault).size();
  }

  private static List<Supplier<RuntimeException>> shapesOf(Fault fault) {
    List<Supplier<RuntimeException>> shapes = SHAPES.get(fault);
    if (shapes == null) {
      throw new IllegalArgumentException(fault + " is no failure: the call gets its reply");
    }
    return shapes;
  }
}
