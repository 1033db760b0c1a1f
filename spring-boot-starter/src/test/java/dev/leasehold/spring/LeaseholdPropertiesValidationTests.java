package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.lease.LeaseException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A property that cannot work fails the start-up with a message naming it, before any connection:
 * the URI points at a loopback port where nothing listens, so a check that came after connecting
 * would fail as "could not connect" ({@link LeaseException}) instead.
 */
class LeaseholdPropertiesValidationTests {
  private static final String NOBODY = "leasehold.uri=redis://127.0.0.1:1";

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class));

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      leasehold.namespace=Billing                                  | leasehold.namespace             | must match
      leasehold.namespace=                                          | leasehold.namespace             | must match
      leasehold.key-version=0                                       | leasehold.key-version           | 1..999
      leasehold.drift-budget=2m                                     | leasehold.drift-budget          | 0..1 min
      leasehold.contention-retry-after=0ms                          | leasehold.contention-retry-after | 1 ms..1 min
      leasehold.command-timeout=0s                                  | leasehold.command-timeout       | (0, 1 min]
      leasehold.counter-retention=0ms                               | leasehold.counter-retention     | 1 ms..365 days
      leasehold.replica-ack.replicas=17                             | leasehold.replica-ack.replicas  | 0..16
      leasehold.replica-ack.replicas=-1                             | leasehold.replica-ack.replicas  | 0..16
      leasehold.replica-ack.replicas=1,leasehold.replica-ack.timeout=0ms | leasehold.replica-ack.timeout | at least 1 ms
      leasehold.replica-ack.timeout=11s                             | leasehold.replica-ack.timeout   | 0..10 s
      """)
  void aSettingOutOfRange_failsTheStartUp_namingItsProperty(String properties, String property, String rule) {
    List<String> values = new ArrayList<>(List.of(properties.split(",")));
    values.add(NOBODY);
    assertFailsNaming(runner.withPropertyValues(values.toArray(String[]::new)), property, rule);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      leasehold.namespace=ok                                        | leasehold.uri                   | no Redis to connect to
      leasehold.uri=redis://127.0.0.1:1,leasehold.sentinel.master=m | leasehold.uri                   | not both
      leasehold.sentinel.nodes=127.0.0.1:26379                      | leasehold.sentinel.master       | must name the master
      leasehold.sentinel.master=m                                   | leasehold.sentinel.nodes        | at least one sentinel
      leasehold.sentinel.master=m,leasehold.sentinel.nodes=127.0.0.1 | leasehold.sentinel.nodes       | entry 0 must be host:port
      leasehold.sentinel.master=m,leasehold.sentinel.nodes=h:1;h:70000 | leasehold.sentinel.nodes     | entry 1 must be host:port
      leasehold.sentinel.master=m,leasehold.sentinel.nodes=127.0.0.1:26379,leasehold.cluster=true | leasehold.cluster | not reached through Sentinel
      leasehold.uri=redis-sentinel://127.0.0.1:1#m,leasehold.cluster=true | leasehold.cluster         | not reached through Sentinel
      """)
  void anEndpointThatCannotWork_failsTheStartUp_namingItsProperty(String properties, String property, String problem) {
    assertFailsNaming(runner.withPropertyValues(properties.replace(';', ',').split(",(?=leasehold)")), property, problem);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      leasehold.uri=redis://:s3cret pw@127.0.0.1:6379
      leasehold.uri=redis://:s3cret-pw@127.0.0.1:6379/notadb
      leasehold.uri=rediz://user:s3cret-pw@127.0.0.1:6379
      leasehold.uri=s3cret-pw
      """)
  void aMalformedUri_isReported_withoutShowingIt(String property) {
    // Lettuce's own message for the first quotes the whole URI, password included.
    runner.withPropertyValues(property).run(context -> {
      Throwable failure = context.getStartupFailure();
      assertThat(failure).isNotNull();
      for (Throwable t = failure; t != null; t = t.getCause()) {
        assertThat(String.valueOf(t.getMessage())).doesNotContain("s3cret");
      }
      InvalidLeaseholdPropertiesException invalid = rootCause(failure);
      assertThat(invalid.property()).isEqualTo("leasehold.uri");
      assertThat(invalid.getMessage()).contains("is not a Redis URI").contains("not shown");
    });
  }

  private static void assertFailsNaming(ApplicationContextRunner configured, String property, String text) {
    configured.run(context -> {
      assertThat(context).hasFailed();
      InvalidLeaseholdPropertiesException invalid = rootCause(context.getStartupFailure());
      assertThat(invalid.property()).isEqualTo(property);
      assertThat(invalid.getMessage()).startsWith(property + ": ").contains(text);
      FailureAnalysis analysis = new InvalidLeaseholdPropertiesFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis.getDescription()).contains(property).contains(text);
      assertThat(analysis.getAction()).startsWith("Fix " + property);
    });
  }

  private static InvalidLeaseholdPropertiesException rootCause(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof InvalidLeaseholdPropertiesException invalid) {
        return invalid;
      }
      assertThat(t).isNotInstanceOf(LeaseException.class);
    }
    throw new AssertionError("the start-up failed, but not on a property", failure);
  }
}
