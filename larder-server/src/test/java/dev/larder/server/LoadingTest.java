package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.FileLayer;
import dev.larder.wal.testing.HookedFiles;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable server binds RESP, memcached and HTTP before it loads its log and refuses what needs
 * the keyspace until the load is done, as Redis answers {@code -LOADING} (HTTP: 503). The load is
 * held still by a file layer that stops the first read of a log segment (after the checkpoint was
 * read and handed to the loading threads) until the test lets it go, so nothing depends on the load
 * being slow.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoadingTest {
  private static final int KEYS = 2_000;
  static final String LOADING = "-LOADING Redis is loading the dataset in memory";

  @TempDir Path dir;

  private ServerConfig config() {
    return ServerConfig.of(
        Map.of(
            "resp-port", "0",
            "memcache-port", "0",
            "http-port", "0",
            "dir", dir.toString()));
  }

  /** Writes KEYS keys, checkpoints them, then changes two of them in the log only. */
  private void writeData() throws IOException {
    try (LarderServer server = LarderServer.start(config());
        Client c = new Client(server.respPort())) {
      for (int i = 0; i < KEYS; i++) {
        c.send("SET", "k:" + i, "old" + i);
      }
      for (int i = 0; i < KEYS; i++) {
        assertEquals("+OK", c.reply());
      }
      assertEquals("+OK", c.call("SAVE"));
      assertEquals("+OK", c.call("SET", "k:0", "new"));
      assertEquals(":1", c.call("DEL", "k:1"));
    }
  }

  @Test
  void aClientConnectedDuringTheLoadIsRefusedUntilTheKeyspaceIsWhole() throws Exception {
    writeData();
    HeldLog held = new HeldLog();
    CompletableFuture<int[]> ports = new CompletableFuture<>();
    CompletableFuture<LarderServer> loading = new CompletableFuture<>();
    ExecutorService starter = Executors.newSingleThreadExecutor();
    Future<LarderServer> started =
        starter.submit(
            () ->
                LarderServer.start(
                    config(),
                    false,
                    held.files(),
                    s -> {
                      loading.complete(s);
                      ports.complete(new int[] {s.respPort(), s.memcachePort()});
                    }));
    LarderServer server = null;
    try {
      assertTrue(held.reached.await(60, TimeUnit.SECONDS), "the load never read the log");
      int[] bound = ports.get(60, TimeUnit.SECONDS);
      try (Client c = new Client(bound[0]);
          Socket memcached = connect(bound[1])) {
        awaitCheckpointLoaded(c);
        // the keyspace holds the checkpoint's k:0 and k:1 now; the log's SET and DEL are not in
        assertEquals(LOADING, c.call("PING"));
        assertEquals(LOADING, c.call("GET", "k:0"));
        assertEquals(LOADING, c.call("EXISTS", "k:1"));
        assertEquals(LOADING, c.call("DBSIZE"));
        assertEquals(LOADING, c.call("SET", "k:2", "during"));
        assertEquals("hi", c.call("ECHO", "hi"));
        String persistence = c.call("INFO", "persistence");
        assertTrue(persistence.contains("loading:1\r\n"), persistence);
        assertTrue(persistence.contains("loading_total_bytes:"), persistence);
        assertTrue(persistence.contains("loading_eta_seconds:"), persistence);
        assertEquals("+OK", c.call("MULTI"));
        assertEquals(LOADING, c.call("GET", "k:0"));
        assertEquals(
            "-EXECABORT Transaction discarded because of previous errors.", c.call("EXEC"));
        assertEquals(
            "SERVER_ERROR loading the dataset in memory", memcachedCall(memcached, "get k:0"));
        assertTrue(memcachedCall(memcached, "version").startsWith("VERSION "));
        assertHttpLoading(loading.get());

        held.release.countDown();
        server = started.get(60, TimeUnit.SECONDS);
        assertEquals(200, httpGet(server.httpPort(), "/api/caches").status());
        assertEquals(200, httpGet(server.httpPort(), "/metrics").status());
        assertEquals("new", httpGet(server.httpPort(), "/api/caches/keyspace/entries/k:0").body());

        assertEquals("+PONG", c.call("PING"));
        assertEquals("new", c.call("GET", "k:0"));
        assertEquals(":0", c.call("EXISTS", "k:1"));
        assertEquals("old2", c.call("GET", "k:2"));
        assertEquals(":" + (KEYS - 1), c.call("DBSIZE"));
        assertTrue(c.call("INFO", "persistence").contains("loading:0\r\n"));
        assertEquals("VALUE k:0 0 3", memcachedCall(memcached, "get k:0"));
      }
    } finally {
      held.releaseAndClose(server, started, starter);
    }
  }

  /**
   * Waits (bounded) until INFO keyspace counts every checkpoint key: the loading threads are done.
   */
  private static void awaitCheckpointLoaded(Client c) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String keyspace = "";
    while (System.nanoTime() < deadline) {
      keyspace = c.call("INFO", "keyspace");
      if (keyspace.contains("db0:keys=" + KEYS + ",")) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the checkpoint's keys never all arrived: " + keyspace);
  }

  /**
   * The HTTP side of a loading server: bound, and every endpoint (console, {@code /api/caches},
   * {@code /metrics}, REST on a key) answers 503 with a body saying it is loading.
   */
  static void assertHttpLoading(LarderServer loading) throws IOException {
    assertTrue(loading.httpPort() > 0, "HTTP is bound while the server loads");
    for (String path :
        List.of("/", "/api/caches", "/metrics", "/api/caches/keyspace/entries/k:0")) {
      HttpReply r = httpGet(loading.httpPort(), path);
      assertEquals(503, r.status(), path);
      assertTrue(r.body().startsWith("LOADING "), path + ": " + r.body());
      assertEquals("1", r.retryAfter(), path);
    }
  }

  /** An HTTP GET's status, body (as UTF-8) and Retry-After header. */
  record HttpReply(int status, String body, String retryAfter) {}

  static HttpReply httpGet(int port, String path) throws IOException {
    HttpURLConnection c =
        (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
    c.setConnectTimeout(30_000);
    c.setReadTimeout(30_000);
    try {
      int status = c.getResponseCode();
      InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
      byte[] bytes = in == null ? new byte[0] : in.readAllBytes();
      if (in != null) {
        in.close();
      }
      return new HttpReply(
          status, new String(bytes, StandardCharsets.UTF_8), c.getHeaderField("Retry-After"));
    } finally {
      c.disconnect();
    }
  }

  static Socket connect(int port) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
    s.setSoTimeout(30_000);
    return s;
  }

  /** Sends one memcached line and returns the first line of the reply. */
  static String memcachedCall(Socket s, String line) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    String first = Client.line(s.getInputStream());
    if (first.startsWith("VALUE ")) {
      // the value's line and END
      Client.line(s.getInputStream());
      Client.line(s.getInputStream());
    }
    return first;
  }

  /**
   * The real file system, but the first read of a log segment waits for {@link #release} (after
   * counting down {@link #reached}): by then recovery has read the checkpoint and handed its blocks
   * to the loading threads, and has replayed none of the log.
   */
  static final class HeldLog {
    final CountDownLatch reached = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    private final AtomicBoolean held = new AtomicBoolean();

    FileLayer files() {
      return new HookedFiles(
          FileLayer.standard(),
          HookedFiles.NONE,
          HookedFiles.NONE,
          (file, position) -> {
            if (file.getFileName().toString().endsWith(".wal") && held.compareAndSet(false, true)) {
              hold();
            }
          });
    }

    /**
     * Ends a test that held a server's start: releases the load, waits (at most 60 s) for the start
     * if the test did not get its server, and closes the server. A start that failed is left to the
     * test's own assertion to report.
     *
     * @param server the server the test got, or null
     */
    void releaseAndClose(LarderServer server, Future<LarderServer> started, ExecutorService starter)
        throws InterruptedException, TimeoutException {
      release.countDown();
      try {
        if (server == null) {
          server = started.get(60, TimeUnit.SECONDS);
        }
        server.close();
      } catch (ExecutionException failedToStart) {
        // the test's own assertion is the failure to report
      } finally {
        starter.shutdownNow();
      }
    }

    private void hold() throws IOException {
      reached.countDown();
      try {
        if (!release.await(90, TimeUnit.SECONDS)) {
          throw new IOException("the test never released the load");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while held", e);
      }
    }
  }

  /** A RESP client reading replies as one line, a bulk string's content, or a flat array. */
  static final class Client implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    Client(int port) throws IOException {
      socket = connect(port);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream());
    }

    String call(String... args) throws IOException {
      send(args);
      return reply();
    }

    void send(String... args) throws IOException {
      StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
      for (String a : args) {
        byte[] b = a.getBytes(StandardCharsets.UTF_8);
        sb.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
      }
      out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
    }

    /** A simple reply, error or integer as its line; a bulk string as its content. */
    String reply() throws IOException {
      String line = line(in);
      if (line.startsWith("$")) {
        int n = Integer.parseInt(line.substring(1));
        if (n < 0) {
          return null;
        }
        byte[] b = in.readNBytes(n + 2);
        return new String(b, 0, n, StandardCharsets.UTF_8);
      }
      if (line.startsWith("*")) {
        List<String> items = new ArrayList<>();
        for (int i = Integer.parseInt(line.substring(1)); i > 0; i--) {
          items.add(reply());
        }
        return items.toString();
      }
      return line;
    }

    static String line(InputStream in) throws IOException {
      StringBuilder sb = new StringBuilder();
      int b;
      while ((b = in.read()) != '\n') {
        if (b < 0) {
          throw new IOException("connection closed after '" + sb + "'");
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
