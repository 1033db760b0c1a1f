package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.testkit.redis.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.BeanInstantiationException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A whole Spring Boot application, found through the starter's
 * {@code META-INF/spring/...AutoConfiguration.imports} like any other, against a real
 * {@code redis-server}: the README's "Spring Boot" section, run; and the start-up report of a bad
 * property, through the starter's {@code META-INF/spring.factories}.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseholdSpringApplicationIntegrationTests {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension("spring-application");

  /** The application: nothing but auto-configuration. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Application {}

  @Test
  void anApplication_getsRedisLeasesFromProperties_andRunsWorkUnderALease() {
    String uri = "redis://" + REDIS.uri().getHost() + ":" + REDIS.uri().getPort();
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
        .web(WebApplicationType.NONE)
        .properties("leasehold.uri=" + uri, "leasehold.namespace=billing", "leasehold.drift-budget=20ms")
        .run()) {
      RedisLeases leases = context.getBean(RedisLeases.class);
      String digest = ResourceDigests.sha256("customer-42");
      LeaseKeys keys = leases.keys("invoice-run", digest);
      LeaseRequest request = new LeaseRequest("invoice-run", digest, Duration.ofSeconds(5), Duration.ofSeconds(30),
          leases.newAttempt("run-2026-12-02"));

      LeaseResult<Long> result = leases.withLease(request, ctx -> {
        ctx.throwIfCancelled();
        assertThat(REDIS.commands().exists(keys.lease())).as("the lease key while the work runs").isEqualTo(1);
        assertThat(ctx.handle().guarantee()).isEqualTo(LeaseGuarantee.FENCED);
        return ctx.fencingToken().orElseThrow();
      });

      assertThat(result).isInstanceOf(LeaseResult.Completed.class);
      long token = ((LeaseResult.Completed<Long>) result).value();
      assertThat(token).isPositive();
      assertThat(keys.lease()).startsWith("billing:lease:v1:{invoice-run:sha256:");
      assertThat(REDIS.commands().exists(keys.lease())).as("released after the work").isZero();
      assertThat(Long.parseLong(REDIS.commands().get(keys.fence()))).isEqualTo(token);
    }
  }

  @Test
  void aBadProperty_stopsTheApplication_withBootsFailureReportNamingIt(CapturedOutput output) {
    SpringApplicationBuilder application = new SpringApplicationBuilder(Application.class)
        .web(WebApplicationType.NONE)
        .properties("leasehold.uri=redis://127.0.0.1:1", "leasehold.namespace=Billing");
    assertThatThrownBy(application::run).isInstanceOf(BeanCreationException.class)
        .hasCauseInstanceOf(BeanInstantiationException.class).cause().hasCauseInstanceOf(InvalidLeaseholdPropertiesException.class);
    assertThat(output.getAll()).contains("APPLICATION FAILED TO START")
        .contains("Leasehold could not be configured: leasehold.namespace: namespace must match")
        .contains("Fix leasehold.namespace");
  }
}
