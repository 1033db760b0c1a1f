package dev.leasehold.spring;

import dev.leasehold.redis.RedisLeaseConfig;
import dev.leasehold.redis.RedisLeases;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Applies {@link LeaseholdProperties} to a {@link RedisLeases.Builder}, and builds it so that a
 * setting the library refuses is reported under its property name. The ranges themselves are the
 * library's ({@code RedisLeases.Builder#build} checks every setting before any I/O, naming it);
 * they are not repeated here, so they cannot drift apart. An unset property leaves the builder's
 * default in place.
 *
 * <p>This class is stateless and threadsafe.
 */
final class LeaseholdSettings {
  /** The library's name of a setting, as its messages begin, to the property that sets it. */
  static final Map<String, String> PROPERTY_OF_SETTING = Map.of(
      "namespace", "leasehold.namespace",
      "keyVersion", "leasehold.key-version",
      "driftBudget", "leasehold.drift-budget",
      "commandTimeout", "leasehold.command-timeout",
      "contentionRetryAfter", "leasehold.contention-retry-after",
      "fenceMode", "leasehold.fence-mode",
      "counterRetention", "leasehold.counter-retention",
      "replicaAcks", "leasehold.replica-ack.replicas",
      "replicaAckTimeout", "leasehold.replica-ack.timeout");

  private LeaseholdSettings() {}

  /** A builder with every set property applied. @throws InvalidLeaseholdPropertiesException for the endpoint */
  static RedisLeases.Builder builder(LeaseholdProperties p) {
    RedisLeases.Builder b = RedisLeases.builder(LeaseholdEndpoint.of(p));
    if (p.cluster()) {
      b.cluster();
    }
    set(p.namespace(), b::namespace);
    set(p.keyVersion(), b::keyVersion);
    set(p.driftBudget(), b::driftBudget);
    set(p.commandTimeout(), b::commandTimeout);
    set(p.contentionRetryAfter(), b::contentionRetryAfter);
    set(p.fenceMode(), b::fenceMode);
    set(p.counterRetention(), b::counterRetention);
    set(p.releaseSignals(), b::releaseSignals);
    LeaseholdProperties.ReplicaAck ack = p.replicaAck();
    if (ack != null && (ack.replicas() != 0 || ack.timeout() != null)) {
      b.replicaAck(ack.replicas(), ack.timeout() != null ? ack.timeout() : RedisLeaseConfig.DEFAULT_REPLICA_ACK_TIMEOUT);
    }
    return b;
  }

  /**
   * Builds, connecting only after every setting passed.
   *
   * @throws InvalidLeaseholdPropertiesException for a setting out of range, naming its property
   */
  static RedisLeases build(RedisLeases.Builder builder) {
    try {
      return builder.build();
    } catch (InvalidLeaseholdPropertiesException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new InvalidLeaseholdPropertiesException(propertyOf(e.getMessage()), String.valueOf(e.getMessage()), e);
    }
  }

  /** The property a library message is about, by the setting name it begins with; else all of {@code leasehold.*}. */
  static String propertyOf(String message) {
    if (message != null) {
      for (String word : List.of(message.split("[^A-Za-z]", 2))) {
        String property = PROPERTY_OF_SETTING.get(word);
        if (property != null) {
          return property;
        }
      }
    }
    return "leasehold.*";
  }

  private static <T> void set(T value, Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }
}
