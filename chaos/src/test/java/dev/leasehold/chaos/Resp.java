package dev.leasehold.chaos;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A blocking one-command RESP2 client for the harness's admin commands (INFO, SENTINEL, CLIENT
 * KILL, ROLE) against 127.0.0.1 only: one connection per call, 1 s timeouts. Error replies come
 * back as {@link Error} values, never thrown.
 *
 * <p>This class is stateless and threadsafe.
 */
final class Resp {
  /** An error reply. */
  record Error(String message) {}

  private Resp() {}

  static Object call(int port, String... args) {
    return pipeline(port, List.<String[]>of(args)).get(0);
  }

  /** Several commands on one connection (so WAIT sees the connection's own writes); all replies. */
  static List<Object> pipeline(int port, List<String[]> commands) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
      socket.setSoTimeout(1000);
      OutputStream out = socket.getOutputStream();
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      for (String[] args : commands) {
        buf.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String a : args) {
          byte[] b = a.getBytes(StandardCharsets.UTF_8);
          buf.writeBytes(("$" + b.length + "\r\n").getBytes(StandardCharsets.UTF_8));
          buf.writeBytes(b);
          buf.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
      }
      out.write(buf.toByteArray());
      out.flush();
      BufferedInputStream in = new BufferedInputStream(socket.getInputStream());
      List<Object> replies = new ArrayList<>();
      for (int i = 0; i < commands.size(); i++) {
        replies.add(read(in));
      }
      return replies;
    } catch (IOException e) {
      throw new UncheckedIOException("127.0.0.1:" + port + " " + String.join(" ", commands.get(0)), e);
    }
  }

  /** The call, or null when the server cannot be reached. */
  static Object tryCall(int port, String... args) {
    try {
      return call(port, args);
    } catch (UncheckedIOException e) {
      return null;
    }
  }

  /** One field of an INFO section, or null. */
  static String info(int port, String section, String field) {
    Object r = tryCall(port, "INFO", section);
    if (!(r instanceof String text)) {
      return null;
    }
    for (String line : text.split("\r\n")) {
      if (line.startsWith(field + ":")) {
        return line.substring(field.length() + 1).trim();
      }
    }
    return null;
  }

  private static Object read(InputStream in) throws IOException {
    int type = in.read();
    String line = line(in);
    switch (type) {
      case '+':
        return line;
      case '-':
        return new Error(line);
      case ':':
        return Long.parseLong(line);
      case '$': {
        int n = Integer.parseInt(line);
        if (n < 0) {
          return null;
        }
        byte[] b = in.readNBytes(n);
        line(in);
        return new String(b, StandardCharsets.UTF_8);
      }
      case '*': {
        int n = Integer.parseInt(line);
        if (n < 0) {
          return null;
        }
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          items.add(read(in));
        }
        return items;
      }
      default:
        throw new IOException("unexpected RESP type " + type);
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int prev = -1;
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("connection closed mid-reply");
      }
      if (prev == '\r' && c == '\n') {
        byte[] bytes = b.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
      }
      b.write(c);
      prev = c;
    }
  }
}
