package dev.leasehold.bench.scale;

import dev.leasehold.bench.CommandStats;
import dev.leasehold.bench.CpuMeter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What the servers did over a window: CPU seconds ({@code INFO cpu}, user + system) and the
 * commands clients sent ({@code INFO commandstats}), summed over the nodes.
 *
 * <p>A script counts as the one command its client sent, not as the commands it runs inside:
 * {@code INFO commandstats} counts those too, under their own names, so only the commands a lock
 * client sends itself are summed. Both libraries send every lock operation as a script and wait
 * on pub/sub, so these are all of their round trips; the meter's own {@code INFO} is left out.
 *
 * <p>This class is not threadsafe; one thread reads it.
 */
final class ServerMeter implements AutoCloseable {
  /** The commands a lock client sends; everything else in commandstats ran inside a script or was ours. */
  static final Set<String> CLIENT_COMMANDS = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall",
      "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe");

  /** One reading of every node. */
  record Reading(double cpuSeconds, long commands) {
    Reading minus(Reading earlier) {
      return new Reading(cpuSeconds - earlier.cpuSeconds, commands - earlier.commands);
    }
  }

  private final List<RedisClient> clients = new ArrayList<>();
  private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

  ServerMeter(List<RedisURI> nodes) {
    for (RedisURI node : nodes) {
      RedisClient client = RedisClient.create(node);
      clients.add(client);
      connections.add(client.connect());
    }
  }

  Reading read() {
    double cpu = 0;
    long commands = 0;
    for (StatefulRedisConnection<String, String> connection : connections) {
      cpu += CpuMeter.serverCpuSeconds(connection.sync().info("cpu"));
      commands += clientCommands(connection.sync().info("commandstats"));
    }
    return new Reading(cpu, commands);
  }

  /** The first node's {@code redis_version}. */
  String version() {
    for (String line : connections.get(0).sync().info("server").split("\r?\n")) {
      if (line.startsWith("redis_version:")) {
        return line.substring("redis_version:".length()).trim();
      }
    }
    return "unknown";
  }

  static long clientCommands(String commandstats) {
    return CommandStats.parse(commandstats).entrySet().stream()
        .filter(command -> CLIENT_COMMANDS.contains(command.getKey()))
        .mapToLong(command -> Long.parseLong(command.getValue().get("calls")))
        .sum();
  }

  @Override
  public void close() {
    connections.forEach(StatefulRedisConnection::close);
    clients.forEach(RedisClient::shutdown);
  }
}
