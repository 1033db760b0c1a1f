package dev.leasehold.examples;

import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.RedisLeases;
import java.time.Duration;

/** The example the README shows: assemble, then run one piece of work under a lease. */
public final class ReadmeExample {
  private ReadmeExample() {}

  /** A store that rejects writes carrying a fencing token lower than one it already accepted. */
  public interface FencedStore {
    void write(String key, String value, long fencingToken);
  }

  // docs example: begin
  /** Runs once against the Redis at {@code args[0]} (a local one by default), printing each write and the result. */
  public static void main(String[] args) {
    String redisUri = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
    System.out.println(run(redisUri, (key, value, fencingToken) ->
        System.out.println("write " + key + " = " + value + " with fencing token " + fencingToken)));
  }

  public static String run(String redisUri, FencedStore store) {
    try (RedisLeases leases = RedisLeases.builder(redisUri)
        .namespace("billing")
        .driftBudget(Duration.ofMillis(20))
        .build()) {
      LeaseRequest request = new LeaseRequest(
          "invoice-run",                          // purpose: [a-z0-9][a-z0-9-]{0,63}
          ResourceDigests.sha256("customer-42"),  // never the raw id
          Duration.ofSeconds(5),                  // wait up to 5 s for the current holder
          Duration.ofSeconds(30),                 // lease TTL; the watchdog renews it
          leases.newAttempt("run-2026-12-02"));   // a new attempt; send this same object again to replay

      LeaseResult<String> result = leases.withLease(request, ctx -> {
        ctx.throwIfCancelled();                   // stop between steps once the lease is lost
        store.write("invoice:42", "sent", ctx.fencingToken().orElseThrow());
        return "sent";
      });

      if (result instanceof LeaseResult.Completed<String> done) {
        return done.value();
      } else if (result instanceof LeaseResult.NotAcquired<String> busy) {
        return "busy: " + busy.outcome();         // Contended, Unavailable, Indeterminate, ...
      } else if (result instanceof LeaseResult.LeaseLostDuringWork<String> lost) {
        return "lost: " + lost.reason();          // only fenced writes were safe
      } else {
        return "failed: " + ((LeaseResult.Failed<String>) result).exception();
      }
    }
  }
  // docs example: end
}
