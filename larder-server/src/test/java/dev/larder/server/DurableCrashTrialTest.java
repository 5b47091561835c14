package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.clients.ClusterPorts;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small crash trial: a server JVM with {@code --dir} takes writes from several connections (RESP
 * SETs, RESP MULTI/EXEC transactions, memcached sets) and is killed with SIGKILL at a random
 * moment; restarted on the same directory, it must hold every acknowledged write (the key's value
 * is the last acknowledged one, or the one in flight when the kill came) and every transaction
 * whole. Several trials per policy, each continuing from what the previous one recovered. The full
 * trials against redis-server are {@code ./larder bench server-crash}.
 */
class DurableCrashTrialTest {
  private static final int WRITERS = 3;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void noAcknowledgedWriteIsLostAndNoTransactionIsPartialAfterSigkill(@TempDir Path dir)
      throws Exception {
    runTrials(dir.resolve("always"), "always", 2);
    runTrials(dir.resolve("everysec"), "everysec", 1);
  }

  private static void runTrials(Path dir, String policy, int trials) throws Exception {
    long[] acked = new long[WRITERS * 3];
    for (int trial = 0; trial <= trials; trial++) {
      Server server = Server.start(dir, policy);
      try {
        verify(server, acked, policy + " trial " + trial);
        if (trial == trials) {
          return;
        }
        writeUntilKilled(server, acked);
      } finally {
        server.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Starts the writers, kills the server 50-500 ms after they have had 50 writes acknowledged (a
   * server JVM just started on a busy machine may take seconds to answer its first requests, and a
   * kill before then would test nothing) and waits for the writers to notice. {@code acked} holds,
   * per writer, the last value acknowledged (and the start of the next).
   */
  private static void writeUntilKilled(Server server, long[] acked) throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong acknowledged = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      for (int k = 0; k < 3; k++) {
        int kind = k;
        int slot = w * 3 + kind;
        Thread t =
            new Thread(
                () -> {
                  try {
                    write(server, kind, slot, acked, acknowledged);
                  } catch (IOException expectedWhenKilled) {
                    // The kill closes the connection; what was acknowledged is in acked.
                  } catch (Throwable e) {
                    failure.set(e);
                  }
                });
        t.start();
        threads.add(t);
      }
    }
    long warmUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (acknowledged.get() < 50 && System.nanoTime() < warmUntil && failure.get() == null) {
      Thread.sleep(5);
    }
    Thread.sleep(50 + ThreadLocalRandom.current().nextInt(450));
    server.process.destroyForcibly();
    assertTrue(server.process.waitFor(10, TimeUnit.SECONDS));
    for (Thread t : threads) {
      t.join(10_000);
      assertTrue(!t.isAlive(), "a writer did not stop after the kill");
    }
    if (failure.get() != null) {
      throw new AssertionError("a writer failed", failure.get());
    }
    assertTrue(acknowledged.get() > 0, "no write was acknowledged before the kill");
  }

  /** Writes n+1, n+2... to its key(s); after each acknowledgement acked[slot] = n. */
  private static void write(
      Server server, int kind, int slot, long[] acked, AtomicLong acknowledged) throws IOException {
    if (kind == 2) {
      writeMemcached(server, slot, acked, acknowledged);
    } else {
      writeResp(server, kind == 1, slot, acked, acknowledged);
    }
  }

  private static void writeMemcached(Server server, int slot, long[] acked, AtomicLong acknowledged)
      throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.memcachePort)) {
      s.setSoTimeout(20_000);
      OutputStream out = s.getOutputStream();
      InputStream in = new BufferedInputStream(s.getInputStream());
      for (long n = acked[slot] + 1; ; n++) {
        String value = Long.toString(n);
        out.write(
            ("set m" + slot + " 0 0 " + value.length() + "\r\n" + value + "\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        assertEquals("STORED", Resp.line(in));
        acked[slot] = n;
        acknowledged.incrementAndGet();
      }
    }
  }

  private static void writeResp(
      Server server, boolean transactions, int slot, long[] acked, AtomicLong acknowledged)
      throws IOException {
    try (Resp c = new Resp(server.respPort)) {
      for (long n = acked[slot] + 1; ; n++) {
        if (!transactions) {
          assertEquals("OK", c.call("SET", "s" + slot, Long.toString(n)));
        } else {
          c.send("MULTI");
          c.send("SET", "a" + slot, Long.toString(n));
          c.send("SET", "b" + slot, Long.toString(n));
          c.send("INCR", "c" + slot);
          assertEquals("OK", c.reply());
          for (int i = 0; i < 3; i++) {
            assertEquals("QUEUED", c.reply());
          }
          assertEquals(List.of("OK", "OK", Long.toString(n)), c.reply());
        }
        acked[slot] = n;
        acknowledged.incrementAndGet();
      }
    }
  }

  /** Every acknowledged write is there (or the one in flight after it); transactions whole. */
  private static void verify(Server server, long[] acked, String trial) throws IOException {
    try (Resp c = new Resp(server.respPort)) {
      for (int w = 0; w < WRITERS; w++) {
        int s = w * 3;
        check(trial, "s" + s, c.call("GET", "s" + s), acked, s);
        Object a = c.call("GET", "a" + (s + 1));
        check(trial, "a" + (s + 1), a, acked, s + 1);
        assertEquals(a, c.call("GET", "b" + (s + 1)), trial + ": transaction half applied");
        assertEquals(a, c.call("GET", "c" + (s + 1)), trial + ": transaction half applied");
        check(trial, "m" + (s + 2), c.call("GET", "m" + (s + 2)), acked, s + 2);
      }
    }
  }

  /** The value is the last acknowledged one or the one in flight; acked then follows it. */
  private static void check(String trial, String key, Object value, long[] acked, int slot) {
    long found = value == null ? 0 : Long.parseLong((String) value);
    assertTrue(
        found == acked[slot] || found == acked[slot] + 1,
        trial + ": " + key + " is " + found + " but " + acked[slot] + " was acknowledged");
    acked[slot] = found;
  }

  /** A server JVM on free ports. */
  private record Server(Process process, int respPort, int memcachePort) {
    /**
     * Starts a server on fresh ports (below the ephemeral range, handed out once in this JVM); if
     * one of them was taken by the time the server bound it (found free a moment before), starts it
     * again on others, at most 5 times.
     */
    static Server start(Path dir, String policy) throws Exception {
      for (int attempt = 1; ; attempt++) {
        Path output = Files.createTempFile(dir.getParent(), "server-", ".log");
        Server server = startOn(dir, policy, ClusterPorts.resp(), ClusterPorts.resp(), output);
        if (server != null) {
          return server;
        }
        String said = Files.readString(output, StandardCharsets.UTF_8);
        if (attempt == 5 || !said.contains("the port is in use")) {
          throw new AssertionError("the server exited before it answered:\n" + said);
        }
        System.err.println("DurableCrashTrialTest: a port was taken (" + said.strip() + ")");
      }
    }

    /**
     * Returns the server once it answers PONG, or null if it exited first (its output says why).
     */
    private static Server startOn(Path dir, String policy, int resp, int memcache, Path output)
        throws Exception {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process p =
          new ProcessBuilder(
                  java,
                  "-Xmx256m",
                  "--enable-native-access=ALL-UNNAMED",
                  "-cp",
                  System.getProperty("java.class.path"),
                  ServeCommand.class.getName(),
                  "--dir",
                  dir.toString(),
                  "--appendfsync",
                  policy,
                  "--port",
                  Integer.toString(resp),
                  "--memcache-port",
                  Integer.toString(memcache),
                  "--http-port",
                  "-1")
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline) {
        try (Resp c = new Resp(resp)) {
          if ("PONG".equals(c.call("PING"))) {
            return new Server(p, resp, memcache);
          }
        } catch (IOException notYet) {
          if (!p.isAlive()) {
            p.waitFor();
            return null;
          }
          Thread.sleep(50);
        } catch (AssertionError reply) {
          // -LOADING while it loads its log (bound already); any other error reply fails
          if (!String.valueOf(reply.getMessage()).startsWith("error reply: LOADING")) {
            throw reply;
          }
          Thread.sleep(50);
        }
      }
      p.destroyForcibly();
      throw new AssertionError("the server did not answer within 60 s");
    }
  }

  /** A minimal RESP2 client: simple strings, errors, integers, bulk strings and arrays. */
  private static final class Resp implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    Resp(int port) throws IOException {
      socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setSoTimeout(20_000);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream());
    }

    Object call(String... args) throws IOException {
      send(args);
      return reply();
    }

    void send(String... args) throws IOException {
      StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
      for (String a : args) {
        sb.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
      }
      out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
    }

    Object reply() throws IOException {
      String line = line(in);
      char type = line.charAt(0);
      String rest = line.substring(1);
      return switch (type) {
        case '+', ':' -> rest;
        case '-' -> throw new AssertionError("error reply: " + rest);
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
          List<Object> items = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            items.add(reply());
          }
          yield items;
        }
        default -> throw new AssertionError("unexpected reply " + line);
      };
    }

    static String line(InputStream in) throws IOException {
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
}
