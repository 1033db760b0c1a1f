package dev.leasehold.spring;

import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.RedisLeases;
import java.time.Duration;
import org.springframework.stereotype.Component;

/**
 * The "Spring Boot" example of docs/guide.md: an application bean that gets the auto-configured
 * {@link RedisLeases} injected. {@link LeaseholdSpringApplicationIntegrationTests} runs it and
 * checks that docs/guide.md shows it.
 *
 * <p>This class is threadsafe (RedisLeases is).
 */
// docs example: begin
@Component
public class InvoiceRun {
  private final RedisLeases leases;                       // auto-configured from leasehold.*

  public InvoiceRun(RedisLeases leases) {
    this.leases = leases;
  }

  public LeaseResult<Long> send(String customerId) {
    LeaseRequest request = new LeaseRequest("invoice-run", ResourceDigests.sha256(customerId),
        Duration.ofSeconds(5), Duration.ofSeconds(30), leases.newAttempt("run-" + customerId));
    return leases.withLease(request, ctx -> {
      ctx.throwIfCancelled();
      long token = ctx.fencingToken().orElseThrow();
      // ... the fenced writes, with leases.keys("invoice-run", digest).fence() as the resource ...
      return token;
    });
  }
}
// docs example: end
