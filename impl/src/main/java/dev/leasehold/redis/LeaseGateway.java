package dev.leasehold.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The adapter's only view of Redis: the four scripts and WAIT. {@link LettuceLeaseGateway} runs
 * them on a real server; tests put a simulated or fault-injecting Redis behind this interface.
 *
 * <p>Every method either returns the script's decoded reply or throws {@link GatewayException}
 * saying whether the command could have been applied. Implementations must be threadsafe.
 */
public interface LeaseGateway extends AutoCloseable {
  /**
   * ACQUIRE: set {@code ownership} with {@code ttlMillis} if absent and issue a token; never extend.
   * With {@code counterRetentionMillis > 0} (only {@link FenceMode#CLOCK_FLOOR}) the fencing counter
   * expires that long after the lease key.
   */
  GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerToken, long ttlMillis, FenceMode mode,
      long counterRetentionMillis);

  /**
   * RENEW: {@code PEXPIRE ttlMillis} if the key holds {@code ownership}; with
   * {@code counterRetentionMillis > 0} the fencing counter's expiry follows, that much later.
   */
  GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttlMillis, long counterRetentionMillis);

  /**
   * {@link #renew} without waiting for the reply: the future completes with the lease's change, or
   * exceptionally with a {@link GatewayException}. A gateway may send it together with other
   * renewals; each is still judged on its own element of the reply. By default it runs
   * {@link #renew} on the calling thread.
   */
  default CompletableFuture<GatewayReply.Change> renewAsync(LeaseKeys keys, String ownership, long ttlMillis,
      long counterRetentionMillis) {
    try {
      return CompletableFuture.completedFuture(renew(keys, ownership, ttlMillis, counterRetentionMillis));
    } catch (GatewayException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** RELEASE: delete the key if it holds {@code ownership}. */
  GatewayReply.Change release(LeaseKeys keys, String ownership);

  /** INSPECT: read-only. */
  GatewayReply.Inspect inspect(LeaseKeys keys, String ownership);

  /**
   * {@code WAIT replicas timeout} on the connection that ran the last write on {@code keys}: replicas
   * that acknowledged. WAIT has no key, so in a cluster it must be sent to the primary that owns
   * the keys' slot, on the connection the script went through (WAIT counts that client's writes).
   */
  long waitForReplicas(LeaseKeys keys, int replicas, Duration timeout);

  /** Closes what this gateway opened; idempotent. */
  @Override
  void close();
}
