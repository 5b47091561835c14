package dev.larder.bench.servercrash;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One client connection speaking RESP2 or memcached's text protocol over a plain socket, so that
 * what counts as acknowledged is exactly a reply read off the wire (no client library retrying or
 * buffering in between). Not thread-safe: one per writer.
 */
final class Wire implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  /**
   * @param port a port on 127.0.0.1
   * @throws IOException if it cannot connect
   */
  Wire(int port) throws IOException {
    socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout(30_000);
    socket.setTcpNoDelay(true);
    out = socket.getOutputStream();
    in = new BufferedInputStream(socket.getInputStream());
  }

  /** Sets how long a read waits for the server (30 s unless set). */
  void readTimeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
  }

  /** Sends one RESP command (without flushing past the socket's buffer: call {@link #flush}). */
  void command(String... args) throws IOException {
    StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
    for (String a : args) {
      sb.append('$')
          .append(a.getBytes(StandardCharsets.UTF_8).length)
          .append("\r\n")
          .append(a)
          .append("\r\n");
    }
    out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** Sends raw text (memcached). */
  void text(String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
  }

  void flush() throws IOException {
    out.flush();
  }

  /** Returns one RESP command's reply, after sending and flushing it. */
  Object call(String... args) throws IOException {
    command(args);
    flush();
    return reply();
  }

  /**
   * Returns the next RESP reply: a String for simple strings, integers and bulk strings, null for a
   * null bulk string, a List for an array.
   *
   * @throws IOException if the connection closes
   * @throws IllegalStateException if the reply is an error
   */
  Object reply() throws IOException {
    String line = line();
    String rest = line.substring(1);
    return switch (line.charAt(0)) {
      case '+', ':' -> rest;
      case '-' -> throw new IllegalStateException("error reply: " + rest);
      case '$' -> {
        int n = Integer.parseInt(rest);
        if (n < 0) {
          yield null;
        }
        byte[] b = in.readNBytes(n + 2);
        if (b.length < n + 2) {
          throw new IOException("connection closed");
        }
        yield new String(b, 0, n, StandardCharsets.UTF_8);
      }
      case '*' -> {
        int n = Integer.parseInt(rest);
        if (n < 0) {
          yield null;
        }
        List<Object> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          items.add(reply());
        }
        yield items;
      }
      default -> throw new IOException("unexpected reply line " + line);
    };
  }

  /** Returns the next line, without its line end. */
  String line() throws IOException {
    StringBuilder sb = new StringBuilder();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new IOException("connection closed");
      }
      if (b != '\r') {
        sb.append((char) b);
      }
    }
    return sb.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
