package dev.larder.server.clients;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Test helper: one RESP connection on a raw socket, for what client libraries hide (push frames,
 * their order, RESP2 redirects). Replies are read as Java values: bulk and simple strings as
 * String, integers as Long, arrays, sets and maps as List, RESP3 push frames as {@link Push}, nulls
 * as null, errors as {@link ErrorReply}. Each read waits at most the socket's timeout. Not
 * thread-safe.
 */
final class RespSocket implements AutoCloseable {
  /** A RESP3 push frame ({@code >}). */
  record Push(List<Object> items) {}

  /** An error reply. */
  record ErrorReply(String line) {}

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  /**
   * @param port a RESP port on 127.0.0.1
   * @param timeoutMillis how long a read waits
   */
  RespSocket(int port, int timeoutMillis) {
    try {
      socket = new Socket();
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
      socket.setSoTimeout(timeoutMillis);
      in = new BufferedInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends a command without reading its reply. */
  void send(String... args) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
    for (String a : args) {
      byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
      b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
      b.writeBytes(bytes);
      b.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
    }
    try {
      out.write(b.toByteArray());
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends a command and reads the next value (its reply, unless a push came first). */
  Object call(String... args) {
    send(args);
    return read();
  }

  /**
   * Reads the next value.
   *
   * @throws AssertionError if none arrives within the socket's timeout
   */
  Object read() {
    try {
      return value();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("nothing arrived in time", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Returns whether any reply byte has arrived and not been read yet (does not wait). */
  boolean hasInput() {
    try {
      return in.available() > 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Object value() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new IOException("connection closed");
    }
    String line = line();
    return switch (type) {
      case '+' -> line;
      case '-' -> new ErrorReply(line);
      case ':' -> Long.parseLong(line);
      case '_' -> null;
      case '#' -> line.equals("t");
      case ',' -> line;
      case '$', '=' -> bulk(Integer.parseInt(line));
      case '*', '~' -> items(Integer.parseInt(line));
      case '%' -> items(2 * Integer.parseInt(line));
      case '>' -> new Push(items(Integer.parseInt(line)));
      default -> throw new IOException("unexpected RESP type " + (char) type + line);
    };
  }

  private Object bulk(int n) throws IOException {
    if (n < 0) {
      return null;
    }
    byte[] b = in.readNBytes(n + 2);
    return new String(Arrays.copyOf(b, n), StandardCharsets.UTF_8);
  }

  private List<Object> items(int n) throws IOException {
    if (n < 0) {
      return null;
    }
    List<Object> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(value());
    }
    return out;
  }

  private String line() throws IOException {
    StringBuilder sb = new StringBuilder();
    int c;
    while ((c = in.read()) != '\r') {
      if (c < 0) {
        throw new IOException("connection closed");
      }
      sb.append((char) c);
    }
    in.read();
    return sb.toString();
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing a test connection
    }
  }
}
