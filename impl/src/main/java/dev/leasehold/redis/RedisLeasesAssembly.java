package dev.leasehold.redis;

import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseException;
import dev.leasehold.lease.LeaseRunner;
import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.MeteredLeasePort;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link RedisLeases.Builder#build()} does: checks every setting before any I/O, so that a
 * bad one costs no connection; opens the deployment ({@link LettuceTopology}); and wires the
 * adapter, the watchdog, the optional meters and the runner over it. What it opened goes to the
 * new instance to close, or is closed here again if a later step fails.
 *
 * <p>This class is stateless and threadsafe (a builder is not: build on the thread that set it).
 */
final class RedisLeasesAssembly {
  // RedisLeases' logger, so that one logger setting still covers everything the assembly says.
  private static final Logger log = LoggerFactory.getLogger(RedisLeases.class);

  private RedisLeasesAssembly() {}

  /**
   * @throws IllegalArgumentException naming the first setting out of range, before any I/O
   * @throws LeaseException if connecting fails (everything opened so far is closed again)
   */
  static RedisLeases assemble(RedisLeases.Builder settings) {
    Duration commandTimeout = Arguments.commandTimeout(settings.commandTimeout);
    LeaseWatchdog.Builder watchdogBuilder = LeaseWatchdog.builder().maxRegistrations(settings.maxWatchdogRegistrations);
    configure(RedisLeaseAdapter.builder(UnconnectedGateway.INSTANCE), settings).build();

    OpenedResources opened = new OpenedResources();
    try {
      LettuceTopology<?> topology = LettuceTopology.of(settings.uri, settings.cluster, settings.client,
          settings.clusterClient, commandTimeout, settings.sslOptions);
      LettuceTopology.Connections connections = topology.open(commandTimeout, settings.releaseSignals, opened);
      ReleaseSignals signals = connections.signals();
      RedisLeaseConfig.Builder config = configure(RedisLeaseAdapter.builder(connections.gateway()), settings);
      if (signals != null) {
        config.sleeper(signals);
      }
      RedisLeaseAdapter adapter = config.build();
      if (settings.watchdogExecutor != null) {
        watchdogBuilder.executor(settings.watchdogExecutor);
      }
      LeaseWatchdog watchdog = watchdogBuilder.build();
      opened.push(watchdog);
      MeteredLeasePort metered = settings.meterRegistry == null ? null : new MeteredLeasePort(adapter, settings.meterRegistry);
      DistributedLeasePort port = metered == null ? adapter : metered;
      LeaseRunner runner = new LeaseRunner(port, watchdog, settings.interruptWorkOnLoss,
          metered == null ? null : metered::recordResult);
      log.info("Leasehold opened (namespace={}, keyVersion={}, topology={}, releaseSignals={}, metrics={})",
          settings.namespace, settings.keyVersion, topology.name(), signals != null, metered != null);
      return new RedisLeases(adapter, port, watchdog, signals, runner, opened);
    } catch (RuntimeException e) {
      opened.closeAfter(e);
      if (e instanceof LeaseException) {
        throw e;
      }
      throw new LeaseException("could not connect to Redis", e instanceof GatewayException ? e : LettuceFailures.classify(e));
    }
  }

  private static RedisLeaseConfig.Builder configure(RedisLeaseConfig.Builder b, RedisLeases.Builder s) {
    return b.namespace(s.namespace).keyVersion(s.keyVersion).driftBudget(s.driftBudget)
        .contentionRetryAfter(s.contentionRetryAfter).fenceMode(s.fenceMode)
        .counterRetention(s.counterRetention).replicaAck(s.replicaAcks, s.replicaAckTimeout);
  }
}
