package dev.larder.server.internal.memcache;

import dev.larder.testing.RequiredTool;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test support: Debian's memcached 1.6.18 started with default flags on a free loopback port, and a
 * plain-socket connection that sends a request and reads everything it answers (the request is
 * followed by {@code mn}, and the reply read up to {@code MN}), for comparing servers reply by
 * reply.
 */
final class MemcachedPeer implements AutoCloseable {
  /** The memcached version the comparisons are made against. */
  static final String VERSION = "memcached 1.6.18";

  private final Process process;
  final int port;

  private MemcachedPeer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts memcached; fails the test if it is not 1.6.18 or does not answer within 10 s. */
  static MemcachedPeer start() throws IOException, InterruptedException {
    Path exe = RequiredTool.onPath("memcached", "memcached");
    Process v = new ProcessBuilder(exe.toString(), "-V").redirectErrorStream(true).start();
    String version = new String(v.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    v.waitFor(10, TimeUnit.SECONDS);
    if (!version.strip().equals(VERSION)) {
      throw new AssertionError("the comparison needs " + VERSION + ", found " + version.strip());
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> cmd =
        new ArrayList<>(List.of(exe.toString(), "-p", "" + port, "-U", "0", "-l", "127.0.0.1"));
    if ("root".equals(System.getProperty("user.name"))) {
      cmd.addAll(List.of("-u", "nobody"));
    }
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Socket probe = new Socket()) {
        probe.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        return new MemcachedPeer(p, port);
      } catch (IOException e) {
        if (System.nanoTime() > deadline || !p.isAlive()) {
          p.destroyForcibly();
          throw new AssertionError("memcached did not start on port " + port, e);
        }
        Thread.sleep(20);
      }
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** A connection that reads a request's whole reply by following it with {@code mn}. */
  static final class Client implements AutoCloseable {
    private static final byte[] END = "MN\r\n".getBytes(StandardCharsets.US_ASCII);
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Client(int port) throws IOException {
      socket = new Socket();
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
      socket.setSoTimeout(5000);
      in = socket.getInputStream();
      out = socket.getOutputStream();
    }

    /** Sends the request bytes (lines with their CRLF) and returns all the server answered. */
    String ask(String request) throws IOException {
      out.write((request + "mn\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      ByteArrayOutputStream reply = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      while (!endsWith(reply.toByteArray())) {
        int n = in.read(buf);
        if (n < 0) {
          throw new IOException("closed after " + reply);
        }
        reply.write(buf, 0, n);
      }
      String s = reply.toString(StandardCharsets.ISO_8859_1);
      return s.substring(0, s.length() - END.length);
    }

    private static boolean endsWith(byte[] b) {
      if (b.length < END.length) {
        return false;
      }
      for (int i = 0; i < END.length; i++) {
        if (b[b.length - END.length + i] != END[i]) {
          return false;
        }
      }
      return b.length == END.length || b[b.length - END.length - 1] == '\n';
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
