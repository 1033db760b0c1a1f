package dev.leasehold.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lettuce client of one deployment, cluster or standalone (Sentinel included), and what the
 * two differ in; lettuce gives them no common type for connecting, so {@link #open} is the one
 * path for both, parameterised by these differences.
 *
 * <p>This class is threadsafe: its fields are final and lettuce clients are threadsafe.
 *
 * @param <C> the command connection this deployment's client opens
 */
final class LettuceTopology<C extends StatefulConnection<String, String>> {
  // RedisLeases' logger, so that one logger setting still covers everything the assembly says.
  private static final Logger log = LoggerFactory.getLogger(RedisLeases.class);

  /** The gateway and the release signals (null when turned off) of an opened deployment. */
  record Connections(LettuceLeaseGateway gateway, ReleaseSignals signals) {}

  private final String name;
  private final AbstractRedisClient client;
  private final boolean owned;
  private final Supplier<C> connect;
  private final Function<C, LettuceLeaseGateway> gateway;
  private final Supplier<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub;

  private LettuceTopology(String name, AbstractRedisClient client, boolean owned, Supplier<C> connect,
      Function<C, LettuceLeaseGateway> gateway, Supplier<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub) {
    this.name = name;
    this.client = client;
    this.owned = owned;
    this.connect = connect;
    this.gateway = gateway;
    this.connectPubSub = connectPubSub;
  }

  /**
   * The deployment of a {@link RedisLeases.Builder}, which sets exactly one of {@code uri},
   * {@code client} and {@code clusterClient} ({@code cluster} only with {@code uri}). A client
   * created here gets {@link LettuceLeaseGateway#clientOptions} and is owned: {@link #open} hands
   * its shutdown to the caller.
   */
  static LettuceTopology<?> of(RedisURI uri, boolean cluster, RedisClient client, RedisClusterClient clusterClient,
      Duration commandTimeout) {
    if (clusterClient != null) {
      return cluster(clusterClient, false);
    }
    if (client != null) {
      // Without the URI a Sentinel client cannot be told apart; the log calls it standalone.
      return standalone(client, false, "standalone");
    }
    if (cluster) {
      RedisClusterClient created = RedisClusterClient.create(uri);
      created.setOptions(ClusterClientOptions.builder(LettuceLeaseGateway.clientOptions(commandTimeout)).build());
      return cluster(created, true);
    }
    RedisClient created = RedisClient.create(uri);
    created.setOptions(LettuceLeaseGateway.clientOptions(commandTimeout));
    boolean sentinel = uri.getSentinels() != null && !uri.getSentinels().isEmpty();
    return standalone(created, true, sentinel ? "sentinel" : "standalone");
  }

  private static LettuceTopology<StatefulRedisClusterConnection<String, String>> cluster(RedisClusterClient client,
      boolean owned) {
    return new LettuceTopology<>("cluster", client, owned, client::connect, LettuceLeaseGateway::over, client::connectPubSub);
  }

  private static LettuceTopology<StatefulRedisConnection<String, String>> standalone(RedisClient client, boolean owned,
      String name) {
    return new LettuceTopology<>(name, client, owned, client::connect, LettuceLeaseGateway::over, client::connectPubSub);
  }

  /** {@code cluster}, {@code sentinel} or {@code standalone}, for the log. */
  String name() {
    return name;
  }

  /**
   * Opens the command connection, its gateway and, if asked, the release signals; pushes each
   * (and an owned client) onto {@code opened} as soon as it exists, so that a failure part-way
   * leaves nothing open once the caller closes {@code opened}.
   */
  Connections open(Duration commandTimeout, boolean releaseSignals, OpenedResources opened) {
    if (owned) {
      opened.push(client::shutdown);
    } else {
      warnIfReplaying(client.getOptions());
    }
    C connection = connect.get();
    opened.push(connection::close);
    // Set here, not on the URI: RedisURI.builder(uri) would drop a Sentinel URI's sentinels.
    connection.setTimeout(commandTimeout);
    LettuceLeaseGateway lettuceGateway = gateway.apply(connection);
    ReleaseSignals signals = null;
    if (releaseSignals) {
      StatefulRedisPubSubConnection<String, String> pubSub = connectPubSub.get();
      pubSub.setTimeout(commandTimeout);
      signals = ReleaseSignals.owning(pubSub);
      opened.push(signals);
    }
    opened.push(lettuceGateway);
    return new Connections(lettuceGateway, signals);
  }

  private static void warnIfReplaying(ClientOptions options) {
    if (options.getDisconnectedBehavior() != ClientOptions.DisconnectedBehavior.REJECT_COMMANDS) {
      log.warn("the injected lettuce client does not reject commands while disconnected: it may re-send "
          + "an in-flight command after a reconnect; use LettuceLeaseGateway.clientOptions(...)");
    }
  }
}
