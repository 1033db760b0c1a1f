package dev.leasehold.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TcpProxy} in front of a real {@code redis-server}, spoken to in RESP's inline form over
 * plain sockets. Each fault is judged on what the server holds (read on a direct connection) and
 * on what reaches the client, never on how fast a thread ran: a wait bounds only how long a test
 * may take, and a reply that must not come is checked after a command on a direct connection
 * showed that the server had answered it.
 */
class TcpProxyTests {
  private static final int READ_TIMEOUT_MS = 300;
  private static RedisProcess redis;
  private static TcpProxy proxy;

  @BeforeAll
  static void start() {
    redis = RedisProcess.start("tcp-proxy");
    proxy = TcpProxy.start("tests", redis.port());
  }

  @AfterAll
  static void stop() {
    proxy.close();
    redis.close();
  }

  @BeforeEach
  void clean() throws IOException {
    proxy.heal();
    proxy.resetAll();
    try (Socket direct = direct()) {
      assertEquals("+OK", command(direct, "FLUSHALL"));
    }
  }

  @Test
  void forwardsBothWays() throws IOException {
    try (Socket client = proxied()) {
      assertEquals(":1", command(client, "INCR k"));
      assertEquals(":2", command(client, "INCR k"));
    }
    assertEquals("2", valueOf("k"));
  }

  @Test
  void delayedRepliesArriveNoEarlierThanTheDelay() throws IOException {
    proxy.delayReplies(200);
    try (Socket client = proxied()) {
      long sent = System.nanoTime();
      assertEquals(":1", command(client, "INCR k", 5_000));
      assertTrue(System.nanoTime() - sent >= TimeUnit.MILLISECONDS.toNanos(200), "the reply came before its delay");
    }
  }

  @Test
  void aDroppedReplyWasAppliedAndItsConnectionIsResetWhenTheDropEnds() throws IOException {
    try (Socket client = proxied()) {
      assertEquals("+PONG", command(client, "PING"));
      long droppedBefore = proxy.droppedReplyBytes();
      proxy.dropReplies(true);
      send(client, "INCR k");
      awaitValue("k", "1");
      await(() -> proxy.droppedReplyBytes() > droppedBefore, "the proxy never met the reply");
      assertThrows(SocketTimeoutException.class, () -> readLine(client, READ_TIMEOUT_MS));
      proxy.dropReplies(false);
      assertClosed(client);
    }
  }

  @Test
  void aBlackholeHoldsRequestsUntilHealed() throws IOException {
    try (Socket client = proxied()) {
      assertEquals("+PONG", command(client, "PING"));
      proxy.blackhole(true);
      send(client, "INCR k");
      assertThrows(SocketTimeoutException.class, () -> readLine(client, READ_TIMEOUT_MS));
      assertEquals("", valueOf("k"), "the server ran a request the blackhole should hold");
      proxy.blackhole(false);
      assertEquals(":1", readLine(client, 5_000));
      assertEquals("1", valueOf("k"));
    }
  }

  @Test
  void theTapSeesARequestWhenItIsSent_evenIntoABlackhole() throws IOException {
    StringBuffer tapped = new StringBuffer();
    proxy.tapRequests((connection, bytes) -> tapped.append(new String(bytes, StandardCharsets.US_ASCII)));
    try (Socket client = proxied()) {
      assertEquals("+PONG", command(client, "PING"));
      proxy.blackhole(true);
      // Two requests: the proxy may already wait in a read when the blackhole starts, so the first
      // would be seen in any case; the second shows the proxy goes on reading.
      send(client, "INCR k");
      await(() -> tapped.indexOf("INCR k") >= 0, "the tap did not see a request sent into the blackhole");
      send(client, "INCR j");
      await(() -> tapped.indexOf("INCR j") >= 0, "the tap did not see a second request sent into the blackhole");
      assertEquals("", valueOf("k"), "the server ran a request the blackhole should hold");
      proxy.blackhole(false);
      assertEquals(":1", readLine(client, 5_000));
      assertEquals(":1", readLine(client, 5_000));
    } finally {
      proxy.tapRequests(null);
    }
  }

  @Test
  void refusedConnectionsAreResetAtOnce() throws IOException {
    proxy.refuse(true);
    Socket client;
    try {
      client = proxied();
    } catch (SocketException reset) {
      // The reset can come back before connect() returns: closed at once, as wanted.
      client = null;
    }
    if (client != null) {
      try (Socket opened = client) {
        assertClosed(opened);
      }
    }
    proxy.refuse(false);
    try (Socket again = proxied()) {
      assertEquals("+PONG", command(again, "PING"));
    }
  }

  @Test
  void resetAllClosesEveryOpenConnection() throws IOException {
    try (Socket first = proxied(); Socket second = proxied()) {
      assertEquals("+PONG", command(first, "PING"));
      assertEquals("+PONG", command(second, "PING"));
      assertEquals(2, proxy.resetAll());
      assertClosed(first);
      assertClosed(second);
    }
  }

  @Test
  void retargetSendsNewConnectionsToAnotherServer_andLeavesOpenOnesWhereTheyAre() throws IOException {
    try (RedisProcess other = RedisProcess.start("tcp-proxy-other"); Socket before = proxied()) {
      assertEquals("+OK", command(before, "SET k first"));
      proxy.retarget(other.port());
      try (Socket after = proxied()) {
        assertEquals("$-1", command(after, "GET k"), "a new connection must reach the other server");
        assertEquals("+OK", command(after, "SET k second"));
      }
      assertEquals("$5", command(before, "GET k"), "the open connection must still read the first server's value");
      assertEquals("first", valueOf("k"), "the open connection must have stayed on the first server");
    } finally {
      proxy.retarget(redis.port());
    }
  }

  // ------------------------------------------------------------------ helpers

  private static Socket proxied() throws IOException {
    return new Socket(InetAddress.getLoopbackAddress(), proxy.port());
  }

  private static Socket direct() throws IOException {
    return new Socket(InetAddress.getLoopbackAddress(), redis.port());
  }

  /** The value of {@code key} read on a direct connection, "" when it has none. */
  private static String valueOf(String key) throws IOException {
    try (Socket direct = direct()) {
      String head = command(direct, "GET " + key);
      return head.equals("$-1") ? "" : readLine(direct, 5_000);
    }
  }

  private static void awaitValue(String key, String value) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!valueOf(key).equals(value)) {
      assertTrue(System.nanoTime() < deadline, key + " never became " + value);
    }
  }

  /** Polls until {@code condition}; the bound only limits how long the test may take. */
  private static void await(BooleanSupplier condition, String otherwise) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, otherwise);
      Thread.onSpinWait();
    }
  }

  private static String command(Socket s, String inline) throws IOException {
    return command(s, inline, 5_000);
  }

  private static String command(Socket s, String inline, int timeoutMs) throws IOException {
    send(s, inline);
    return readLine(s, timeoutMs);
  }

  private static void send(Socket s, String inline) throws IOException {
    s.getOutputStream().write((inline + "\r\n").getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
  }

  private static String readLine(Socket s, int timeoutMs) throws IOException {
    s.setSoTimeout(timeoutMs);
    InputStream in = s.getInputStream();
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new IOException("closed");
      }
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  /** The proxy closed the connection: a read ends or fails (a reset) instead of waiting. */
  private static void assertClosed(Socket s) throws IOException {
    s.setSoTimeout(5_000);
    try {
      assertEquals(-1, s.getInputStream().read());
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the connection is still open", e);
    } catch (IOException reset) {
      // Connection reset: closed, as wanted.
    }
  }
}
