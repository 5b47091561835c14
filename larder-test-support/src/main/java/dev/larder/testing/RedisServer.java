package dev.larder.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server for a test to compare with or run against: a child process on 127.0.0.1, on a port
 * free when it was chosen, with persistence off (no RDB snapshots, no AOF) unless the caller's
 * arguments turn it on, ready once it answers {@code PING}; {@link #close()} stops it. The server's
 * output goes to a temporary file, whose tail a failure to start reports.
 *
 * <p>A missing redis-server is {@link RequiredTool}'s case: it fails the test under CI and skips it
 * elsewhere. A port taken by another process between its choice and the server's bind makes the
 * server exit at once; it is started again on another port, up to {@value #ATTEMPTS} times.
 *
 * <p>Thread-safe: the port is fixed once started, and {@code close} may be called more than once.
 */
public final class RedisServer implements AutoCloseable {

  private static final int ATTEMPTS = 3;
  private static final Duration READY = Duration.ofSeconds(20);

  private final Process process;
  private final int port;
  private final Path output;

  private RedisServer(Process process, int port, Path output) {
    this.process = process;
    this.port = port;
    this.output = output;
  }

  /**
   * Starts redis-server and waits until it answers.
   *
   * @param arguments more configuration, as redis-server takes it on its command line (e.g. {@code
   *     "--maxmemory-policy", "allkeys-lfu"}); they come after the defaults and so override them
   * @return the running server
   * @throws AssertionError if redis-server is missing under CI, or does not answer within 20 s
   * @throws org.opentest4j.TestAbortedException if it is missing outside CI
   * @throws IOException if the process cannot be started or its output file written
   * @throws InterruptedException if interrupted while waiting for it
   */
  public static RedisServer start(String... arguments) throws IOException, InterruptedException {
    Path executable = RequiredTool.onPath("redis-server", "redis-server");
    String failures = "";
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      int port = freePort();
      Path output = Files.createTempFile("redis-server-" + port + "-", ".log");
      List<String> command = new ArrayList<>();
      command.add(executable.toString());
      command.addAll(
          List.of(
              "--port",
              Integer.toString(port),
              "--bind",
              "127.0.0.1",
              "--save",
              "",
              "--appendonly",
              "no",
              "--daemonize",
              "no"));
      command.addAll(List.of(arguments));
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      RedisServer server = new RedisServer(process, port, output);
      if (server.awaitPong()) {
        return server;
      }
      String tail = server.outputTail();
      server.close();
      if (process.isAlive()) {
        throw new AssertionError(
            "redis-server did not answer PING on port " + port + " within " + READY + ":\n" + tail);
      }
      failures += "\nattempt " + attempt + ", port " + port + ", exit " + process.exitValue();
      failures += ":\n" + tail;
    }
    throw new AssertionError("redis-server did not start in " + ATTEMPTS + " attempts:" + failures);
  }

  /** Returns the port it listens on, on 127.0.0.1. */
  public int port() {
    return port;
  }

  /**
   * Stops the server: SIGTERM, then SIGKILL after 10 s; returns within about 20 s. Interrupted, it
   * kills the server at once and keeps the thread's interrupt status.
   */
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
    try {
      Files.deleteIfExists(output);
    } catch (IOException e) {
      // a temporary file left behind is no reason to fail the test that used the server
    }
  }

  /** Returns true once the server answers PING, false if it exits or the wait runs out. */
  private boolean awaitPong() throws InterruptedException {
    long deadline = System.nanoTime() + READY.toNanos();
    while (process.isAlive() && System.nanoTime() < deadline) {
      if (answersPing()) {
        return true;
      }
      Thread.sleep(20);
    }
    return false;
  }

  private boolean answersPing() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] reply = in.readNBytes(7);
      return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
    } catch (IOException notYet) {
      return false;
    }
  }

  private String outputTail() {
    try {
      String text = Files.readString(output, StandardCharsets.UTF_8);
      return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return s.getLocalPort();
    }
  }
}
