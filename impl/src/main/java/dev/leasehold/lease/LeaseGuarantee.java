package dev.leasehold.lease;

/**
 * What a lease can protect. A lease is not a lock: after its expiry a paused old holder can still
 * act, so only a fencing token checked where the effect happens can guard a write.
 *
 * <p>This enum is immutable.
 */
public enum LeaseGuarantee {
  /** Avoids duplicate work most of the time; cannot protect a write. */
  EFFICIENCY_ONLY,
  /** The handle carries a fencing token; an effect store that checks it rejects stale writers. */
  FENCED
}
