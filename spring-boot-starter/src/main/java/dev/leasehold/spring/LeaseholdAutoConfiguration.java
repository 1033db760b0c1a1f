package dev.leasehold.spring;

import dev.leasehold.integration.LeaseholdLockRegistry;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.shedlock.LeaseholdLockProvider;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configures one {@link RedisLeases} from {@code leasehold.*} ({@link LeaseholdProperties}),
 * unless the application defines its own {@code RedisLeases} bean or sets
 * {@code leasehold.enabled=false}. The properties are checked before any connection
 * ({@link InvalidLeaseholdPropertiesException} names the one at fault); the instance connects when
 * the context starts, is metered when the context has one {@code MeterRegistry} (or a primary one),
 * and is closed with the context. With ShedLock or Spring Integration (and Leasehold's adapter for
 * it) on the classpath, it also makes their {@code LockProvider} or {@code LockRegistry}, unless the
 * application has one.
 *
 * <p>This class is stateless and threadsafe; Spring calls it while the context starts.
 */
@AutoConfiguration
@ConditionalOnClass(RedisLeases.class)
@ConditionalOnBooleanProperty(name = "leasehold.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LeaseholdProperties.class)
public class LeaseholdAutoConfiguration {

  /** The leases; {@code close} on context shutdown closes what they opened (handles still held expire). */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public RedisLeases redisLeases(LeaseholdProperties properties, ObjectProvider<LeaseholdBuilderCustomizer> customizers) {
    RedisLeases.Builder builder = LeaseholdSettings.builder(properties);
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    return LeaseholdSettings.build(builder);
  }

  /**
   * ShedLock's {@code LockProvider}, when the application has ShedLock and {@code leasehold-shedlock}
   * and defines no provider of its own: {@code @SchedulerLock} methods run under leases.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"net.javacrumbs.shedlock.core.LockProvider", "dev.leasehold.shedlock.LeaseholdLockProvider"})
  static class ShedLock {
    @Bean
    @ConditionalOnMissingBean(type = "net.javacrumbs.shedlock.core.LockProvider")
    LeaseholdLockProvider leaseholdLockProvider(RedisLeases leases) {
      return new LeaseholdLockProvider(leases.port());
    }
  }

  /**
   * Spring Integration's {@code LockRegistry}, when the application has Spring Integration and
   * {@code leasehold-spring-integration} and defines no registry of its own.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"org.springframework.integration.support.locks.LockRegistry",
      "dev.leasehold.integration.LeaseholdLockRegistry"})
  static class Integration {
    @Bean
    @ConditionalOnMissingBean(type = "org.springframework.integration.support.locks.LockRegistry")
    LeaseholdLockRegistry leaseholdLockRegistry(RedisLeases leases) {
      return new LeaseholdLockRegistry(leases.port());
    }
  }

  /**
   * Only with Micrometer on the classpath: {@code MeterRegistry} appears in no other class here,
   * so an application without Micrometer never loads it.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
  static class Metrics {
    /** Hands the context's registry, if it has exactly one (or a primary), to the builder. */
    @Bean
    LeaseholdBuilderCustomizer leaseholdMeterRegistry(ObjectProvider<MeterRegistry> registry) {
      return builder -> registry.ifUnique(builder::meterRegistry);
    }
  }
}
