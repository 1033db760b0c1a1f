package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.leasehold.integration.LeaseholdLockRegistry;
import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseException;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.MeteredLeasePort;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.redis.RedisLeaseConfig;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.shedlock.LeaseholdLockProvider;
import dev.leasehold.testkit.redis.RedisServerExtension;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The auto-configuration in {@link ApplicationContextRunner}s against a real {@code redis-server}:
 * properties reach the instance, an application's own bean wins, meters appear with a registry,
 * the context's close closes the instance. Bad properties: {@link LeaseholdPropertiesValidationTests}.
 */
class LeaseholdAutoConfigurationTests {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension("spring-autoconfig");

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class));

  static String uri() {
    return "redis://" + REDIS.uri().getHost() + ":" + REDIS.uri().getPort();
  }

  @Test
  void everyPropertyReachesTheInstance() {
    runner.withPropertyValues("leasehold.uri=" + uri(), "leasehold.namespace=billing", "leasehold.key-version=3",
        "leasehold.drift-budget=25ms", "leasehold.contention-retry-after=75ms", "leasehold.fence-mode=counter",
        "leasehold.counter-retention=90s",
        "leasehold.replica-ack.replicas=1", "leasehold.replica-ack.timeout=40ms", "leasehold.release-signals=false")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(RedisLeases.class);
          RedisLeases leases = context.getBean(RedisLeases.class);
          RedisLeaseConfig config = leases.adapter().config();
          assertThat(config.namespace()).isEqualTo("billing");
          assertThat(config.keyVersion()).isEqualTo(3);
          assertThat(config.driftBudget()).isEqualTo(Duration.ofMillis(25));
          assertThat(config.contentionRetryAfter()).isEqualTo(Duration.ofMillis(75));
          assertThat(config.fenceMode()).isEqualTo(FenceMode.COUNTER);
          assertThat(config.counterRetention()).isEqualTo(Duration.ofSeconds(90));
          assertThat(config.replicaAcks()).isEqualTo(1);
          assertThat(config.replicaAckTimeout()).isEqualTo(Duration.ofMillis(40));
          assertThat(leases.releaseSignals()).isEmpty();
          assertThat(leases.keys("invoice-run", digest()).lease()).startsWith("billing:lease:v3:{");
        });
  }

  @Test
  void unsetProperties_keepTheLibrarysDefaults() {
    runner.withPropertyValues("leasehold.uri=" + uri()).run(context -> {
      RedisLeases leases = context.getBean(RedisLeases.class);
      RedisLeaseConfig config = leases.adapter().config();
      assertThat(config.namespace()).isEqualTo(RedisLeaseConfig.DEFAULT_NAMESPACE);
      assertThat(config.keyVersion()).isEqualTo(RedisLeaseConfig.DEFAULT_KEY_VERSION);
      assertThat(config.driftBudget()).isEqualTo(RedisLeaseConfig.DEFAULT_DRIFT_BUDGET);
      assertThat(config.contentionRetryAfter()).isEqualTo(RedisLeaseConfig.DEFAULT_CONTENTION_RETRY_AFTER);
      assertThat(config.fenceMode()).isEqualTo(RedisLeaseConfig.DEFAULT_FENCE_MODE);
      assertThat(config.counterRetention()).isEqualTo(RedisLeaseConfig.DEFAULT_COUNTER_RETENTION);
      assertThat(config.replicaAcks()).isZero();
      assertThat(leases.releaseSignals()).isPresent();
    });
  }

  @Test
  void theCommandTimeout_reachesTheConnection() {
    // The server is paused for 800 ms: with a 150 ms command timeout the acquire must give up as
    // Indeterminate well before the pause ends (with the default 2 s it would wait and succeed).
    runner.withPropertyValues("leasehold.uri=" + uri(), "leasehold.command-timeout=150ms").run(context -> {
      RedisLeases leases = context.getBean(RedisLeases.class);
      REDIS.commands().clientPause(800);
      long start = System.nanoTime();
      AcquireOutcome outcome;
      long millis;
      try {
        outcome = leases.port().tryAcquire(LeaseRequest.once("timeout-check", digest(), Duration.ofSeconds(5),
            leases.newAttempt("op-timeout")));
        millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
      } finally {
        unpause(); // waits for the pause to end too: it pauses the side connection as well
      }
      assertThat(outcome).isInstanceOf(AcquireOutcome.Indeterminate.class);
      assertThat(millis).isLessThan(700);
    });
  }

  @Test
  void anApplicationsOwnRedisLeases_winsAndNeedsNoProperties() {
    runner.withUserConfiguration(OwnLeases.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(RedisLeases.class);
      assertThat(context.getBean(RedisLeases.class).adapter().config().namespace()).isEqualTo("mine");
    });
  }

  @Test
  void disabled_configuresNothing_andChecksNothing() {
    runner.withPropertyValues("leasehold.enabled=false", "leasehold.namespace=NOT VALID").run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(RedisLeases.class);
    });
  }

  @Test
  void aMeterRegistryBean_getsTheMeters() {
    runner.withPropertyValues("leasehold.uri=" + uri()).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(context -> {
          RedisLeases leases = context.getBean(RedisLeases.class);
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(leases.port()).isInstanceOf(MeteredLeasePort.class);
          assertThat(registry.find("leasehold.operations").tag("operation", "acquire").timer()).isNotNull();
          AcquireOutcome outcome = leases.port().tryAcquire(LeaseRequest.once("metered", digest(), Duration.ofSeconds(5),
              leases.newAttempt("op-metered")));
          assertThat(outcome).isInstanceOf(AcquireOutcome.Acquired.class);
          ((AcquireOutcome.Acquired) outcome).handle().release();
          assertThat(registry.get("leasehold.outcomes").tag("operation", "acquire").tag("outcome", "Acquired").counter()
              .count()).isEqualTo(1.0);
        });
  }

  @Test
  void withoutARegistry_orWithoutMicrometer_thereAreNoMeters() {
    runner.withPropertyValues("leasehold.uri=" + uri()).run(context ->
        assertThat(context.getBean(RedisLeases.class).port()).isInstanceOf(RedisLeaseAdapter.class));
    runner.withPropertyValues("leasehold.uri=" + uri()).withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(LeaseholdBuilderCustomizer.class);
          assertThat(context.getBean(RedisLeases.class).port()).isInstanceOf(RedisLeaseAdapter.class);
        });
  }

  @Test
  void withShedLockAndSpringIntegration_theirLockProviderAndRegistryAreLeases() {
    runner.withPropertyValues("leasehold.uri=" + uri()).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(LeaseholdLockProvider.class).hasSingleBean(LeaseholdLockRegistry.class);
      assertThat(context.getBean(LockProvider.class)).isInstanceOf(LeaseholdLockProvider.class);
      assertThat(context.getBean(LockRegistry.class)).isInstanceOf(LeaseholdLockRegistry.class);
    });
  }

  @Test
  void anApplicationsOwnProviderOrRegistry_wins_andWithoutTheLibraryThereIsNone() {
    LockProvider own = configuration -> java.util.Optional.empty();
    runner.withPropertyValues("leasehold.uri=" + uri()).withBean(LockProvider.class, () -> own)
        .withBean(LockRegistry.class, DefaultLockRegistry::new)
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(LeaseholdLockProvider.class)
              .doesNotHaveBean(LeaseholdLockRegistry.class);
          assertThat(context.getBean(LockProvider.class)).isSameAs(own);
        });
    runner.withPropertyValues("leasehold.uri=" + uri())
        .withClassLoader(new FilteredClassLoader(LockProvider.class, LockRegistry.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaseholdLockProvider.class)
            .doesNotHaveBean(LeaseholdLockRegistry.class));
  }

  @Test
  void aCustomizerBean_adjustsTheBuilder() {
    runner.withPropertyValues("leasehold.uri=" + uri())
        .withBean(LeaseholdBuilderCustomizer.class, () -> builder -> builder.releaseSignals(false))
        .run(context -> assertThat(context.getBean(RedisLeases.class).releaseSignals()).isEmpty());
  }

  @Test
  void closingTheContext_closesTheInstance_andItsConnections() {
    long before = connectedClients(REDIS);
    RedisLeases[] leases = new RedisLeases[1];
    runner.withPropertyValues("leasehold.uri=" + uri()).run(context -> {
      leases[0] = context.getBean(RedisLeases.class);
      assertThat(connectedClients(REDIS)).isEqualTo(before + 2); // commands and release signals
    });
    awaitClients(REDIS, before);
    assertThatThrownBy(() -> leases[0].withLease(LeaseRequest.once("closed", digest(), Duration.ofSeconds(5),
        leases[0].newAttempt("op-closed")), ctx -> "never"))
        .isInstanceOf(LeaseException.class).hasMessageContaining("closed");
  }

  /** Lettuce has no CLIENT UNPAUSE command method; dispatch sends it as is. */
  private static void unpause() {
    REDIS.commands().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
        new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));
  }

  /** The connections the server has open (the side connection included). */
  static long connectedClients(RedisServerExtension redis) {
    return redis.commands().clientList().lines().filter(line -> !line.isBlank()).count();
  }

  /** The server drops a closed connection from its list a moment after the client closed it. */
  static void awaitClients(RedisServerExtension redis, long expected) {
    await().atMost(Duration.ofSeconds(2)).until(() -> connectedClients(redis) == expected);
  }

  static String digest() {
    return ResourceDigests.sha256("customer-42");
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnLeases {
    @Bean(destroyMethod = "close")
    RedisLeases myLeases() {
      return RedisLeases.builder(uri()).namespace("mine").build();
    }
  }
}
