package dev.leasehold.testkit.sim;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A bare RESP2 client for one loopback connection, so that a real server's replies keep their
 * types as the simulated server gives them (lettuce reads a status reply as a bulk string): Long,
 * String (bulk), {@link StatusReply}, null (nil) and Lists; an error reply comes back as a
 * {@link DifferentialRun.Err}.
 *
 * <p>This class is not threadsafe.
 */
final class RespClient implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  RespClient(int port) {
    try {
      socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setSoTimeout(10_000);
      socket.setTcpNoDelay(true);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends one command and reads its reply. */
  Object send(List<String> argv) {
    try {
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      request.write(("*" + argv.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (String arg : argv) {
        byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
        request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        request.write(bytes);
        request.write('\r');
        request.write('\n');
      }
      out.write(request.toByteArray());
      out.flush();
      return read();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Object read() throws IOException {
    int type = in.read();
    String line = line();
    switch (type) {
      case '+':
        return new StatusReply(line);
      case '-':
        return new DifferentialRun.Err(line);
      case ':':
        return Long.parseLong(line);
      case '$': {
        int length = Integer.parseInt(line);
        if (length < 0) {
          return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
      }
      case '*': {
        int count = Integer.parseInt(line);
        if (count < 0) {
          return null;
        }
        List<Object> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          items.add(read());
        }
        return items;
      }
      default:
        throw new IOException("not a RESP2 reply: " + (char) type + line);
    }
  }

  private String line() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\r'; b = in.read()) {
      if (b < 0) {
        throw new IOException("connection closed");
      }
      bytes.write(b);
    }
    in.read(); // '\n'
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
