package dev.leasehold.jdbc;

/**
 * What a fenced write was told: go ahead, or the token is older than one the resource has already
 * seen. A stale token is always this typed refusal, never a silent success and never an exception:
 * the caller must decide, so the compiler makes it look.
 *
 * <p>The records are immutable.
 */
public sealed interface FenceResult {

  /** The token that was judged. */
  long token();

  /** True for {@link Admitted}. */
  default boolean admitted() {
    return this instanceof Admitted;
  }

  /**
   * The token is the newest the resource has seen (newer than all before, or equal: a replay of the
   * same holder). Within the caller's transaction the resource stays fenced at this token until it
   * commits or rolls back, so the caller's write that follows is the newest holder's.
   *
   * @param token the admitted token, now the resource's newest (until a rollback undoes it)
   */
  record Admitted(long token) implements FenceResult {}

  /**
   * The token is older than the newest one a committed write was admitted with (or one still
   * uncommitted when this transaction waited for it and it committed). Nothing was changed; roll
   * back (or commit: the fence was not moved). The holder of {@code token} has lost its lease.
   *
   * @param token the refused token
   * @param newest the resource's newest token, always above {@code token}
   */
  record Stale(long token, long newest) implements FenceResult {
    /** @throws IllegalArgumentException unless {@code newest > token} */
    public Stale {
      if (newest <= token) {
        throw new IllegalArgumentException("a stale token is below the newest, but " + token + " >= " + newest);
      }
    }
  }
}
