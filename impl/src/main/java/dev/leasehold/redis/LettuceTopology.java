package dev.leasehold.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lettuce client of one deployment, cluster or standalone (Sentinel included), and what the
 * two differ in; lettuce gives them no common type for connecting, so {@link #of} and {@link #open}
 * / {@link #openGateway} are the one path for both, parameterised by these differences, shared by
 * {@link RedisLeases.Builder} and {@link LettuceLeaseGateway#connect}.
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
  private final BiFunction<C, AutoCloseable, LettuceLeaseGateway> gateway;
  private final Supplier<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub;

  private LettuceTopology(String name, AbstractRedisClient client, boolean owned, Supplier<C> connect,
      BiFunction<C, AutoCloseable, LettuceLeaseGateway> gateway, Supplier<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub) {
    this.name = name;
    this.client = client;
    this.owned = owned;
    this.connect = connect;
    this.gateway = gateway;
    this.connectPubSub = connectPubSub;
  }

  /**
   * The one place a lettuce client is set up, for {@link RedisLeases.Builder} and
   * {@link LettuceLeaseGateway#connect}/{@link LettuceLeaseGateway#connectCluster} alike. Exactly one
   * of {@code uri}, {@code client} and {@code clusterClient} is set ({@code cluster} only with
   * {@code uri}). A client created here gets {@link LettuceLeaseGateway#clientOptions}, plus
   * {@code ssl} when not null (a trust store for a {@code rediss://} URI); a cluster client gets
   * {@link LettuceLeaseGateway#clusterClientOptions} instead. A client created here is owned: opening
   * hands its shutdown to the caller.
   */
  static LettuceTopology<?> of(RedisURI uri, boolean cluster, RedisClient client, RedisClusterClient clusterClient,
      Duration commandTimeout, SslOptions ssl) {
    if (clusterClient != null) {
      return cluster(clusterClient, false);
    }
    if (client != null) {
      // Without the URI a Sentinel client cannot be told apart; the log calls it standalone.
      return standalone(client, false, "standalone");
    }
    if (cluster) {
      RedisClusterClient created = RedisClusterClient.create(uri);
      ClusterClientOptions options = LettuceLeaseGateway.clusterClientOptions(commandTimeout);
      created.setOptions(ssl == null ? options : options.mutate().sslOptions(ssl).build());
      return cluster(created, true);
    }
    // The URI is used as given: RedisURI.builder(uri) would drop a Sentinel URI's sentinels.
    RedisClient created = RedisClient.create(uri);
    ClientOptions options = LettuceLeaseGateway.clientOptions(commandTimeout);
    created.setOptions(ssl == null ? options : options.mutate().sslOptions(ssl).build());
    boolean sentinel = uri.getSentinels() != null && !uri.getSentinels().isEmpty();
    return standalone(created, true, sentinel ? "sentinel" : "standalone");
  }

  private static LettuceTopology<StatefulRedisClusterConnection<String, String>> cluster(RedisClusterClient client,
      boolean owned) {
    return new LettuceTopology<>("cluster", client, owned, () -> connectedToEveryPrimary(client.connect()),
        LettuceLeaseGateway::owning, client::connectPubSub);
  }

  /**
   * Opens the connection to every primary that serves slots now. lettuce opens node connections
   * lazily, and with {@code REJECT_COMMANDS} it rejects a command that would wait for one: without
   * this, the first command to each primary came back {@code Unavailable}. A primary that cannot
   * be reached now, or that appears later (a failover), still costs its first command that way:
   * definitely not applied, and tried again.
   */
  private static StatefulRedisClusterConnection<String, String> connectedToEveryPrimary(
      StatefulRedisClusterConnection<String, String> connection) {
    for (RedisClusterNode node : connection.getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
        try {
          connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
        } catch (RuntimeException e) {
          log.debug("no connection to cluster node {}:{} yet: {}", node.getUri().getHost(), node.getUri().getPort(),
              e.toString());
        }
      }
    }
    return connection;
  }

  private static LettuceTopology<StatefulRedisConnection<String, String>> standalone(RedisClient client, boolean owned,
      String name) {
    return new LettuceTopology<>(name, client, owned, client::connect, LettuceLeaseGateway::owning, client::connectPubSub);
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
    LettuceLeaseGateway lettuceGateway = gateway.apply(connect(commandTimeout, opened), null);
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

  /**
   * A gateway alone that owns its connection and an owned client: its close closes them.
   *
   * @throws GatewayException if connecting fails (what was opened is closed again)
   */
  LettuceLeaseGateway openGateway(Duration commandTimeout) {
    OpenedResources opened = new OpenedResources();
    try {
      return gateway.apply(connect(commandTimeout, opened), opened::closeAll);
    } catch (RuntimeException e) {
      opened.closeAfter(e);
      throw e instanceof GatewayException g ? g : LettuceFailures.classify(e);
    }
  }

  private C connect(Duration commandTimeout, OpenedResources opened) {
    if (owned) {
      opened.push(client::shutdown);
    } else {
      warnIfReplaying(client.getOptions());
    }
    C connection = connect.get();
    opened.push(connection::close);
    // Set here, not on the URI: RedisURI.builder(uri) would drop a Sentinel URI's sentinels.
    connection.setTimeout(commandTimeout);
    return connection;
  }

  private static void warnIfReplaying(ClientOptions options) {
    if (options.getDisconnectedBehavior() != ClientOptions.DisconnectedBehavior.REJECT_COMMANDS) {
      log.warn("the injected lettuce client does not reject commands while disconnected: it may re-send "
          + "an in-flight command after a reconnect; use LettuceLeaseGateway.clientOptions(...)");
    }
  }
}
