package dev.leasehold.testkit.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's own {@link RedisCluster}, started before its first test and stopped (every process
 * by PID) after its last; one cluster per class, which its tests share.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisClusterExtension CLUSTER = new RedisClusterExtension("my-cluster-test");
 * }</pre>
 *
 * <p>This class is not threadsafe.
 */
public final class RedisClusterExtension implements BeforeAllCallback, AfterAllCallback {
  private final String name;
  private final String[] extraArgs;
  private RedisCluster cluster;

  /** A cluster of {@link RedisCluster#start}, each node started with {@code extraArgs} too. */
  public RedisClusterExtension(String name, String... extraArgs) {
    this.name = name;
    this.extraArgs = extraArgs.clone();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (cluster == null) {
      cluster = RedisCluster.start(name, extraArgs);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (cluster != null) {
      try {
        cluster.close();
      } finally {
        cluster = null;
      }
    }
  }

  /** The running cluster. */
  public RedisCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("the cluster of " + name + " is not started (register the extension)");
    }
    return cluster;
  }
}
