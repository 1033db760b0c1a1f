package dev.leasehold.spring;

import io.lettuce.core.RedisURI;
import java.util.List;

/**
 * Where to connect, from {@code leasehold.uri} or {@code leasehold.sentinel.*}: exactly one of
 * the two, checked before any connection. A URI can carry a password, so no message here shows
 * it, nor does any exception keep lettuce's own parse failure (whose message may quote it).
 *
 * <p>This class is stateless and threadsafe.
 */
final class LeaseholdEndpoint {
  private LeaseholdEndpoint() {}

  /** @throws InvalidLeaseholdPropertiesException naming the property at fault */
  static RedisURI of(LeaseholdProperties p) {
    boolean hasUri = p.uri() != null && !p.uri().isBlank();
    boolean hasSentinel = p.sentinel() != null && p.sentinel().configured();
    if (hasUri && hasSentinel) {
      throw invalid("leasehold.uri", "set leasehold.uri or leasehold.sentinel.*, not both");
    }
    if (!hasUri && !hasSentinel) {
      throw invalid("leasehold.uri", "no Redis to connect to: set leasehold.uri (redis://host:port, rediss://...,"
          + " redis-sentinel://host:port,host:port#master) or leasehold.sentinel.master and leasehold.sentinel.nodes");
    }
    return hasUri ? fromUri(p.uri().trim(), p.cluster()) : fromSentinel(p.sentinel(), p.cluster());
  }

  private static RedisURI fromUri(String text, boolean cluster) {
    RedisURI uri;
    try {
      uri = RedisURI.create(text);
    } catch (RuntimeException e) {
      // Not chained: lettuce's message may quote the URI, password included.
      throw invalid("leasehold.uri", "is not a Redis URI (redis://, rediss://, redis-socket:// or redis-sentinel://);"
          + " the value has " + text.length() + " characters and is not shown, as it may carry a password");
    }
    if (cluster && !uri.getSentinels().isEmpty()) {
      throw invalid("leasehold.cluster", "a Redis Cluster is not reached through Sentinel; give a cluster node as leasehold.uri");
    }
    return uri;
  }

  private static RedisURI fromSentinel(LeaseholdProperties.Sentinel sentinel, boolean cluster) {
    if (cluster) {
      throw invalid("leasehold.cluster", "a Redis Cluster is not reached through Sentinel; give a cluster node as leasehold.uri");
    }
    if (sentinel.master() == null || sentinel.master().isBlank()) {
      throw invalid("leasehold.sentinel.master", "must name the master the sentinels monitor");
    }
    List<String> nodes = sentinel.nodes();
    if (nodes == null || nodes.isEmpty()) {
      throw invalid("leasehold.sentinel.nodes", "must list at least one sentinel as host:port");
    }
    RedisURI.Builder builder = null;
    for (int i = 0; i < nodes.size(); i++) {
      HostPort node = HostPort.parse(nodes.get(i), i);
      builder = builder == null
          ? RedisURI.Builder.sentinel(node.host(), node.port(), sentinel.master().trim())
          : builder.withSentinel(node.host(), node.port());
    }
    return builder.build();
  }

  /** One sentinel node. */
  private record HostPort(String host, int port) {
    static HostPort parse(String node, int index) {
      String text = node == null ? "" : node.trim();
      int colon = text.lastIndexOf(':');
      String host = colon > 0 ? text.substring(0, colon) : "";
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port = -1;
      try {
        port = Integer.parseInt(text.substring(colon + 1));
      } catch (NumberFormatException e) {
        // reported below with the others
      }
      if (host.isEmpty() || port < 1 || port > 65535) {
        throw invalid("leasehold.sentinel.nodes", "entry " + index + " must be host:port with a port in 1..65535");
      }
      return new HostPort(host, port);
    }
  }

  static InvalidLeaseholdPropertiesException invalid(String property, String problem) {
    return new InvalidLeaseholdPropertiesException(property, problem, null);
  }
}
