package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.testkit.redis.RedisServerExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * A whole Spring Boot application, which finds the starter through its
 * {@code META-INF/spring/...AutoConfiguration.imports} like any other, against a real
 * {@code redis-server}: the "Spring Boot" section of docs/guide.md ({@code readme-example.properties} and
 * {@link InvoiceRun}, which {@link SpringBootDocUnitTests} holds the guide to), run; and the start-up
 * report of a bad property, through the starter's {@code META-INF/spring.factories}.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseholdSpringApplicationIntegrationTests {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension("spring-application");

  /** The application: auto-configuration and the guide's bean. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(InvoiceRun.class)
  static class Application {}

  @Test
  void theReadmeApplication_runsWorkUnderALease_fromTheReadmeProperties() {
    String uri = "redis://" + REDIS.uri().getHost() + ":" + REDIS.uri().getPort();
    long clientsBefore = LeaseholdAutoConfigurationTests.connectedClients(REDIS);
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
        .web(WebApplicationType.NONE)
        .run("--spring.config.name=readme-example", "--leasehold.uri=" + uri)) {
      LeaseKeys keys = context.getBean(RedisLeases.class).keys("invoice-run", ResourceDigests.sha256("customer-42"));

      LeaseResult<Long> result = context.getBean(InvoiceRun.class).send("customer-42");

      assertThat(result).isInstanceOf(LeaseResult.Completed.class);
      long token = ((LeaseResult.Completed<Long>) result).value();
      assertThat(keys.lease()).as("leasehold.namespace from the file").startsWith("billing:lease:v1:{invoice-run:sha256:");
      assertThat(Long.parseLong(REDIS.commands().get(keys.fence()))).as("the token the server issued").isEqualTo(token);
      assertThat(REDIS.commands().exists(keys.lease())).as("released after the work").isZero();
      assertThat(context.getBean(RedisLeases.class).adapter().config().driftBudget()).hasMillis(20);
    }
    LeaseholdAutoConfigurationTests.awaitClients(REDIS, clientsBefore);
  }

  @Test
  void aBadProperty_stopsTheApplication_withBootsFailureReportNamingIt(CapturedOutput output) {
    SpringApplicationBuilder application = new SpringApplicationBuilder(Application.class)
        .web(WebApplicationType.NONE)
        .properties("leasehold.uri=redis://127.0.0.1:1", "leasehold.namespace=Billing");
    assertThatThrownBy(application::run).isInstanceOf(BeanCreationException.class).satisfies(e -> {
      List<Throwable> causes = new ArrayList<>();
      for (Throwable t = e; t != null; t = t.getCause()) {
        causes.add(t);
      }
      assertThat(causes).hasAtLeastOneElementOfType(InvalidLeaseholdPropertiesException.class);
    });
    assertThat(output.getAll()).contains("APPLICATION FAILED TO START")
        .contains("Leasehold could not be configured: leasehold.namespace: namespace must match")
        .contains("Fix leasehold.namespace");
  }
}
