package dev.leasehold.testkit.redis;

import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.IntSupplier;

/**
 * A {@code redis-server} process a test started on a free loopback port and stops by PID. It keeps
 * nothing on disk unless asked, logs under {@code target/redis-logs}, and can be killed, paused,
 * resumed and restarted on the same port.
 *
 * <p>This class is not threadsafe; one test thread drives it.
 */
public final class RedisProcess implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(10);

  private final Path binary;
  private final String name;
  private final int port;
  private final List<String> extraArgs;
  private final Path dir;
  private Process process;

  private RedisProcess(Path binary, String name, int port, List<String> extraArgs) throws IOException {
    this.binary = binary;
    this.name = name;
    this.port = port;
    this.extraArgs = List.copyOf(extraArgs);
    this.dir = Files.createDirectories(Path.of("target", "redis-logs", name + "-" + port).toAbsolutePath());
  }

  /**
   * Starts a server with no persistence on a free loopback port.
   *
   * @throws IllegalStateException when no redis-server binary can be found
   */
  public static RedisProcess start(String name, String... extraArgs) {
    return startOn(name, freePort(), extraArgs);
  }

  /** Starts a server on {@code port}. */
  public static RedisProcess startOn(String name, int port, String... extraArgs) {
    Path binary = RedisBinary.locate().orElseThrow(
        () -> new IllegalStateException("no redis-server on PATH and no bundled binary for this platform"));
    return startOn(binary, name, port, extraArgs);
  }

  /**
   * Starts {@code binary} (e.g. {@link RedisBinary#bundled()}) with no persistence on a free
   * loopback port.
   */
  public static RedisProcess startWith(Path binary, String name, String... extraArgs) {
    return startOn(binary, name, freePort(), extraArgs);
  }

  private static RedisProcess startOn(Path binary, String name, int port, String... extraArgs) {
    try {
      RedisProcess redis = new RedisProcess(binary, name, port, List.of(extraArgs));
      redis.launch();
      return redis;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** How far above a cluster node's port Redis puts its cluster bus. */
  static final int CLUSTER_BUS_OFFSET = 10_000;

  /**
   * A free TCP port on 127.0.0.1 for a Redis Cluster node: its cluster bus port, {@value
   * #CLUSTER_BUS_OFFSET} higher, is free too (a node whose bus port is taken exits at start).
   */
  public static int freeClusterPort() {
    return clusterPort(RedisProcess::freePort, RedisProcess::isFree);
  }

  /** The first of {@code candidates} whose bus port is a port and {@code free}; at most 100 tried. */
  static int clusterPort(IntSupplier candidates, IntPredicate free) {
    for (int i = 0; i < 100; i++) {
      int port = candidates.getAsInt();
      int bus = port + CLUSTER_BUS_OFFSET;
      if (bus <= 65_535 && free.test(bus)) {
        return port;
      }
    }
    throw new IllegalStateException("no free port on 127.0.0.1 whose cluster bus port is free too");
  }

  static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** A free TCP port on 127.0.0.1. */
  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void launch() throws IOException {
    List<String> command = new ArrayList<>(List.of(binary.toString(),
        "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
        "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString(), "--daemonize", "no"));
    command.addAll(extraArgs);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile()));
    process = builder.start();
    awaitPort();
  }

  private void awaitPort() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("redis-server exited with " + process.exitValue() + "; see " + dir);
      }
      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return;
      } catch (IOException notYet) {
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while starting redis-server", e);
        }
      }
    }
    throw new IllegalStateException("redis-server did not listen on " + port + " within " + START_TIMEOUT);
  }

  public int port() {
    return port;
  }

  public long pid() {
    return process.pid();
  }

  public Path dir() {
    return dir;
  }

  public String name() {
    return name;
  }

  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** The loopback URI of this server. */
  public RedisURI uri() {
    return RedisURI.create("redis://127.0.0.1:" + port);
  }

  /** {@code kill -9} and wait for the exit. */
  public void kill() {
    signal("KILL");
    waitForExit();
  }

  /** {@code SIGSTOP}: the server holds its connections but answers nothing. */
  public void pause() {
    signal("STOP");
  }

  /** {@code SIGCONT}. */
  public void resume() {
    signal("CONT");
  }

  /** Kills the server if alive and starts a fresh one on the same port: no keys, no scripts. */
  public void restart() {
    if (isAlive()) {
      kill();
    }
    try {
      launch();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
      if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling redis-server", e);
    }
  }

  private void waitForExit() {
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the server by PID; idempotent. A paused server is resumed first so it can die. */
  @Override
  public void close() {
    if (isAlive()) {
      // SIGKILL ends a stopped process too.
      process.destroyForcibly();
      waitForExit();
    }
  }
}
