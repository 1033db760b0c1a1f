package dev.leasehold.testkit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * An in-process TCP proxy on 127.0.0.1 in front of one loopback server, with faults a test turns
 * on and off: latency on every chunk, replies delayed, replies dropped (the connection is reset
 * when the drop ends, since TCP never loses bytes inside a live connection), a blackhole that
 * forwards nothing in either direction until healed (held requests then arrive late, which is how
 * a delayed request gets applied after its client gave up), and resets (RST) of every connection.
 *
 * <p>Only loopback targets are accepted. Three threads per connection (requests are read by one
 * and forwarded by another, replies by a third); the client side is accepted by one thread. {@link #close()} stops everything.
 *
 * <p>This class is threadsafe.
 */
public final class TcpProxy implements AutoCloseable {
  private volatile int targetPort;
  private final ServerSocket listener;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicLong droppedReplyBytes = new AtomicLong();
  private final AtomicLong repliesRead = new AtomicLong();
  private final Thread acceptor;
  private volatile boolean closed;
  private volatile long latencyNanos;
  private volatile long replyDelayNanos;
  private volatile boolean dropReplies;
  private volatile boolean blackhole;
  private volatile boolean refuse;
  private volatile BiConsumer<Object, byte[]> requestTap = (connection, bytes) -> {};

  private TcpProxy(String name, int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket();
    listener.setReuseAddress(true);
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    this.acceptor = new Thread(this::acceptLoop, "proxy-" + name + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A proxy from a free loopback port to {@code 127.0.0.1:targetPort}. */
  public static TcpProxy start(String name, int targetPort) {
    try {
      return new TcpProxy(name, targetPort);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return listener.getLocalPort();
  }

  public int connectionsAccepted() {
    return accepted.get();
  }

  /** The reply bytes discarded by {@link #dropReplies} so far: evidence that a drop met a reply. */
  public long droppedReplyBytes() {
    return droppedReplyBytes.get();
  }

  /**
   * The reply chunks read from the server so far, whether forwarded yet or not: evidence that the
   * server has run a command sent before.
   */
  public long repliesRead() {
    return repliesRead.get();
  }

  /** Adds {@code ms} before every chunk is forwarded, both ways. */
  public void latency(long ms) {
    latencyNanos = ms * 1_000_000L;
  }

  /** Holds every reply (server to client) for {@code ms} more; 0 stops. */
  public void delayReplies(long ms) {
    replyDelayNanos = ms * 1_000_000L;
  }

  /** Discards replies while on; when turned off, every connection that lost bytes is reset. */
  public void dropReplies(boolean on) {
    dropReplies = on;
    if (!on) {
      for (Link link : links) {
        if (link.poisoned) {
          link.reset();
        }
      }
    }
  }

  /** Forwards nothing either way while on; held bytes flow again when it is turned off. */
  public void blackhole(boolean on) {
    blackhole = on;
  }

  /** While on, every new connection is reset as soon as it is accepted (the server looks down). */
  public void refuse(boolean on) {
    refuse = on;
  }

  /**
   * New connections go to {@code 127.0.0.1:port} from now on; open ones stay where they are until
   * they end or {@link #resetAll} ends them. With both, a failover to another server looks to a
   * client like a reconnect to the same address.
   */
  public void retarget(int port) {
    targetPort = port;
  }

  /** Resets (RST) every open connection, both sides. */
  public int resetAll() {
    int n = 0;
    for (Link link : links) {
      link.reset();
      n++;
    }
    return n;
  }

  /**
   * Hands every chunk a client sends to {@code tap} as soon as it arrives, even during a blackhole
   * (which then holds it), with an object that stands for its connection (chunks of one connection
   * come in order).
   */
  public void tapRequests(BiConsumer<Object, byte[]> tap) {
    this.requestTap = tap == null ? (connection, bytes) -> {} : tap;
  }

  /** No faults. */
  public void heal() {
    latency(0);
    delayReplies(0);
    blackhole(false);
    refuse(false);
    dropReplies(false);
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (closed) {
          return;
        }
        continue;
      }
      accepted.incrementAndGet();
      if (refuse) {
        rst(client);
        continue;
      }
      try {
        Socket server = new Socket();
        server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 1000);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        Link link = new Link(client, server);
        links.add(link);
        link.start();
      } catch (IOException e) {
        // The target is down: the client sees its connection close, as it would without us.
        rst(client);
      }
    }
  }

  private final class Link {
    final Socket client;
    final Socket server;
    volatile boolean poisoned;
    volatile boolean dead;

    Link(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    void start() {
      // Requests are read by a thread of their own, even into a blackhole, so that the tap sees
      // when the client sent them; the pump then holds them until the blackhole is healed.
      BlockingQueue<Chunk> requests = new LinkedBlockingQueue<>();
      daemon(() -> readRequests(requests), "proxy-read-" + client.getPort());
      daemon(() -> pump(requests::take, server, false), "proxy-up-" + client.getPort());
      daemon(() -> pump(replies(), client, true), "proxy-down-" + client.getPort());
    }

    private void daemon(Runnable task, String name) {
      Thread thread = new Thread(task, name);
      thread.setDaemon(true);
      thread.start();
    }

    void readRequests(BlockingQueue<Chunk> queue) {
      byte[] buf = new byte[16 * 1024];
      try {
        InputStream in = client.getInputStream();
        while (!dead) {
          int n = in.read(buf);
          if (n < 0) {
            break;
          }
          byte[] chunk = Arrays.copyOf(buf, n);
          requestTap.accept(this, chunk);
          queue.add(new Chunk(chunk, System.nanoTime()));
        }
      } catch (IOException e) {
        // The client went away.
      } finally {
        queue.add(Chunk.END);
      }
    }

    /** Replies are read only while no blackhole is on: held ones stay in the socket's buffers. */
    ChunkSource replies() {
      byte[] buf = new byte[16 * 1024];
      return () -> {
        awaitOpen();
        int n = server.getInputStream().read(buf);
        if (n < 0) {
          return Chunk.END;
        }
        repliesRead.incrementAndGet();
        return new Chunk(Arrays.copyOf(buf, n), System.nanoTime());
      };
    }

    void pump(ChunkSource source, Socket to, boolean reply) {
      try {
        OutputStream out = to.getOutputStream();
        while (!dead) {
          Chunk chunk = source.next();
          // A blackhole that started while this chunk was in flight swallows it until healed (an
          // end of stream too, so the other side does not see the close through a blackhole).
          awaitOpen();
          if (chunk == Chunk.END) {
            break;
          }
          int n = chunk.bytes().length;
          if (reply && dropReplies) {
            poisoned = true;
            droppedReplyBytes.addAndGet(n);
            continue;
          }
          if (poisoned) {
            continue;
          }
          long delay = latencyNanos + (reply ? replyDelayNanos : 0);
          long wait = chunk.readAt() + delay - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          out.write(chunk.bytes());
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // Either side went away.
      } finally {
        reset();
      }
    }

    void awaitOpen() throws InterruptedException {
      while (blackhole && !dead && !closed) {
        Thread.sleep(2);
      }
    }

    void reset() {
      if (dead) {
        return;
      }
      dead = true;
      links.remove(this);
      rst(client);
      rst(server);
    }
  }

  /** Bytes read from one side and when; {@link #END} ends the stream. */
  private record Chunk(byte[] bytes, long readAt) {
    static final Chunk END = new Chunk(new byte[0], 0);
  }

  @FunctionalInterface
  private interface ChunkSource {
    Chunk next() throws IOException, InterruptedException;
  }

  private static void rst(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (SocketException ignored) {
      // already closed
    }
    try {
      socket.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    resetAll();
  }
}
