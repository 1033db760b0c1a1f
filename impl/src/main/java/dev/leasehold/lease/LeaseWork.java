package dev.leasehold.lease;

/**
 * Work done while holding a lease, given to {@link LeaseRunner#withLease}. Pass
 * {@link LeaseContext#fencingToken()} to every write the lease protects, and check
 * {@link LeaseContext#isCancelled()} between steps: once the lease is lost, stop.
 *
 * @param <T> result type
 */
@FunctionalInterface
public interface LeaseWork<T> {
  T run(LeaseContext context) throws Exception;
}
