package dev.larder.cli;

import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The training run behind {@code ./larder serve}'s start-up cache (JDK 25's AOT cache, see
 * docs/design/server.md, "Start-up"): it does once, in a JVM started with {@code
 * -XX:AOTCacheOutput}, what a durable server's start does, so that the JVM records the classes it
 * loads and links, the lambdas and call sites it resolves, and the methods' profiles, and the next
 * {@code serve} finds them ready.
 *
 * <p>What it runs: {@code serve --print-jvm-options} (the option parsing {@code ./larder} does
 * before it starts the server's JVM); a server on a fresh directory with every listener on (RESP,
 * memcached, HTTP, free ports) that takes {@value #CHECKPOINTED_KEYS} writes over RESP and one over
 * memcached, checkpoints ({@code SAVE}) and takes more writes (a log after the checkpoint); then a
 * second server on the same directory, which recovers both (the checkpoint's load long enough for
 * the JIT to compile its path), answers {@code PING} and reads. The directory is deleted at the
 * end. Nothing here is measured: a failure exits non-zero and {@code ./larder} goes on without a
 * cache.
 *
 * <p>Not part of the product's API; run by {@code ./larder}'s build step only.
 */
public final class ServeTraining {
  /**
   * Keys written before the checkpoint, of 100-byte values: enough that the second server's load of
   * the checkpoint runs long enough for the JIT to compile the load path (and the cache to keep
   * those methods' profiles), as a restart of a large keyspace needs it.
   */
  private static final int CHECKPOINTED_KEYS = 300_000;

  /** Keys written after the checkpoint: the log the second server replays over it. */
  private static final int LOGGED_KEYS = 20_000;

  /** Commands sent before their replies are read. */
  private static final int PIPELINE = 10_000;

  private ServeTraining() {}

  /**
   * Runs the training.
   *
   * @param args none
   * @throws Exception if a step fails
   */
  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("larder-serve-training-");
    try {
      PrintStream out = System.out;
      int parsed =
          LarderCli.commandLine().execute("serve", "--print-jvm-options", "--dir", dir.toString());
      if (parsed != 0) {
        throw new IllegalStateException("serve --print-jvm-options exited with " + parsed);
      }
      ServerConfig config =
          ServerConfig.of(
              Map.of(
                  "dir", dir.toString(),
                  "resp-port", "0",
                  "memcache-port", "0",
                  "http-port", "0"));
      try (LarderServer server = LarderServer.start(config)) {
        write(server, 0, CHECKPOINTED_KEYS);
        expect(resp(server.respPort(), "SAVE"), "+OK");
        write(server, CHECKPOINTED_KEYS, CHECKPOINTED_KEYS + LOGGED_KEYS);
      }
      try (LarderServer server = LarderServer.start(config)) {
        expect(resp(server.respPort(), "PING"), "+PONG");
        expect(resp(server.respPort(), "DBSIZE"), ":" + (CHECKPOINTED_KEYS + LOGGED_KEYS + 2));
      }
      out.println("larder: start-up training done");
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** Writes keys [from, to) of 100-byte values over RESP, and one key over memcached. */
  private static void write(LarderServer server, int from, int to) throws IOException {
    try (Connection c = new Connection(server.respPort())) {
      for (int start = from; start < to; start += PIPELINE) {
        int end = Math.min(to, start + PIPELINE);
        StringBuilder commands = new StringBuilder();
        for (int i = start; i < end; i++) {
          String value = "value " + i + " ";
          commands.append(
              command(
                  "SET",
                  "training:" + i,
                  value.repeat(100 / value.length() + 1).substring(0, 100)));
        }
        c.send(commands.toString());
        for (int i = start; i < end; i++) {
          expect(c.line(), "+OK");
        }
      }
      c.send(command("INCR", "training:counter") + command("GET", "training:" + from));
      c.line();
      c.line();
      c.line();
    }
    try (Connection c = new Connection(server.memcachePort())) {
      c.send("set training:memcached 0 0 5\r\nvalue\r\nget training:memcached\r\n");
      expect(c.line(), "STORED");
    }
  }

  private static String resp(int port, String name) throws IOException {
    try (Connection c = new Connection(port)) {
      c.send(command(name));
      return c.line();
    }
  }

  private static String command(String... parts) {
    StringBuilder b = new StringBuilder("*").append(parts.length).append("\r\n");
    for (String part : parts) {
      b.append('$').append(part.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
      b.append(part).append("\r\n");
    }
    return b.toString();
  }

  private static void expect(String reply, String expected) {
    if (!expected.equals(reply)) {
      throw new IllegalStateException("expected " + expected + ", the server said " + reply);
    }
  }

  /** A client connection that reads replies line by line (the replies used here are lines). */
  private static final class Connection implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final BufferedReader in;

    Connection(int port) throws IOException {
      socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setSoTimeout(60_000);
      out = socket.getOutputStream();
      in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    }

    void send(String text) throws IOException {
      out.write(text.getBytes(StandardCharsets.UTF_8));
      out.flush();
    }

    String line() throws IOException {
      String line = in.readLine();
      if (line == null) {
        throw new IOException("the server closed the connection");
      }
      return line;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
