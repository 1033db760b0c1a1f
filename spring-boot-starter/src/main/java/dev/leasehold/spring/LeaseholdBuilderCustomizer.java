package dev.leasehold.spring;

import dev.leasehold.redis.RedisLeases;

/**
 * A bean that adjusts the auto-configured {@link RedisLeases.Builder} after the properties are
 * applied and before it builds: for the settings that are objects rather than properties (a
 * watchdog executor, {@code interruptWorkOnLoss}). Customizers run in {@code @Order}; the
 * starter's own one hands over the application's {@code MeterRegistry}. What a customizer sets is
 * checked like a property, before any connection.
 *
 * <p>Implementations are called once, on the thread that creates the context.
 */
@FunctionalInterface
public interface LeaseholdBuilderCustomizer {
  void customize(RedisLeases.Builder builder);
}
