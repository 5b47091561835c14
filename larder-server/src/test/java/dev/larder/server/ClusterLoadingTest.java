package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusteredCache;
import dev.larder.server.LoadingTest.Client;
import dev.larder.server.LoadingTest.HeldLog;
import dev.larder.server.clients.ClusterPorts;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable cluster member binds RESP and memcached before it recovers its log, answers {@code
 * -LOADING} (memcached: {@code SERVER_ERROR}) while it recovers and until it has joined its cluster
 * with what it recovered, and then serves every acknowledged key: a first PONG means recovered and
 * joined. The recovery is held still by a file layer that stops the first read of a log segment
 * until the test lets it go (as in {@link LoadingTest}), so nothing depends on the load being slow.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterLoadingTest {
  private static final int KEYS = 2_000;
  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  @TempDir Path dir;

  private final String cluster =
      "cluster-loading-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
  private int respPort;
  private int clusterPort;

  ClusterLoadingTest() throws IOException {
    respPort = ClusterPorts.resp();
    clusterPort = ClusterPorts.cluster();
  }

  /** A member founding a cluster of one, on the same ports and directory at every start. */
  private ServerConfig config() {
    Map<String, String> m = new HashMap<>();
    m.put("resp-port", Integer.toString(respPort));
    m.put("memcache-port", "0");
    m.put("http-port", "0");
    m.put("cluster", cluster);
    m.put("cluster-port", Integer.toString(clusterPort));
    m.put("peers", "127.0.0.1[" + clusterPort + "]");
    m.put("cluster-command-threads", "4");
    m.put("cluster-node-name", "m0");
    m.put("dir", dir.toString());
    return ServerConfig.of(m);
  }

  /**
   * The first start, on fresh ports if one found free was taken by the time the member bound it (at
   * most 5 times); the restart then comes back on the ports this one bound.
   */
  private LarderServer firstStart() throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return LarderServer.start(config());
      } catch (IOException | RuntimeException e) {
        if (attempt == 5 || !ClusterPorts.taken(e)) {
          throw e;
        }
        System.err.println("ClusterLoadingTest: a port was taken (" + e + "); fresh ports");
        respPort = ClusterPorts.resp();
        clusterPort = ClusterPorts.cluster();
      }
    }
  }

  /** Writes KEYS keys, checkpoints them, then changes two of them in the log only. */
  private void writeData() throws IOException {
    try (LarderServer server = firstStart();
        Client c = new Client(server.respPort());
        Socket memcached = LoadingTest.connect(server.memcachePort())) {
      for (int i = 0; i < KEYS; i++) {
        c.send("SET", "k:" + i, "old" + i);
      }
      for (int i = 0; i < KEYS; i++) {
        assertEquals("+OK", c.reply());
      }
      assertEquals("+OK", c.call("SAVE"));
      assertEquals("+OK", c.call("SET", "k:0", "new"));
      assertEquals(":1", c.call("DEL", "k:1"));
      assertEquals("STORED", memcachedSet(memcached, "mc:0", "text"));
    }
  }

  @Test
  void aRestartedMemberAnswersLoadingUntilRecoveredAndJoinedThenServesEveryKey() throws Exception {
    writeData();
    HeldLog held = new HeldLog();
    CompletableFuture<LarderServer> whileLoading = new CompletableFuture<>();
    ExecutorService starter = Executors.newSingleThreadExecutor();
    Future<LarderServer> started =
        starter.submit(
            () -> LarderServer.start(config(), false, held.files(), whileLoading::complete));
    LarderServer server = null;
    try {
      assertTrue(held.reached.await(60, TimeUnit.SECONDS), "the recovery never read the log");
      LarderServer loading = whileLoading.get(60, TimeUnit.SECONDS);
      assertEquals(respPort, loading.respPort());
      ClusteredCache<byte[], byte[]> store = loading.clusteredStore().orElseThrow();
      assertEquals(List.of(), store.members(), "the member joined before its recovery ended");
      try (Client c = new Client(loading.respPort());
          Socket memcached = LoadingTest.connect(loading.memcachePort())) {
        assertEquals(LoadingTest.LOADING, c.call("PING"));
        assertEquals(LoadingTest.LOADING, c.call("GET", "k:0"));
        assertEquals(LoadingTest.LOADING, c.call("SET", "k:2", "during"));
        assertEquals(LoadingTest.LOADING, c.call("DBSIZE"));
        assertEquals(LoadingTest.LOADING, c.call("CLUSTER", "SLOTS"));
        assertEquals(LoadingTest.LOADING, c.call("WATCH", "k:0"));
        assertEquals("hi", c.call("ECHO", "hi"));
        assertTrue(c.call("ROLE").startsWith("[master"), "ROLE while loading");
        assertEquals(":0", c.call("PUBLISH", "channel", "message"));
        String info = c.call("INFO", "everything");
        assertFalse(info.startsWith("-"), info);
        assertTrue(info.contains("loading:1\r\n"), info);
        assertTrue(info.contains("cluster_enabled:1\r\n"), info);
        assertEquals(
            "SERVER_ERROR loading the dataset in memory",
            LoadingTest.memcachedCall(memcached, "get mc:0"));
        assertTrue(LoadingTest.memcachedCall(memcached, "version").startsWith("VERSION "));
        for (String stats : List.of("stats", "stats items", "stats slabs", "stats cachedump 1 0")) {
          List<String> lines = memcachedLines(memcached, stats);
          assertFalse(lines.isEmpty() || lines.getLast().startsWith("SERVER_ERROR"), stats + lines);
        }
        LoadingTest.assertHttpLoading(loading);

        held.release.countDown();
        server = started.get(60, TimeUnit.SECONDS);

        assertEquals(List.of("m0"), store.members());
        assertEquals(200, LoadingTest.httpGet(server.httpPort(), "/api/caches").status());
        assertEquals("+PONG", c.call("PING"));
        assertEquals("new", c.call("GET", "k:0"));
        assertEquals(":0", c.call("EXISTS", "k:1"));
        for (int i = 2; i < KEYS; i++) {
          c.send("GET", "k:" + i);
        }
        for (int i = 2; i < KEYS; i++) {
          assertEquals("old" + i, c.reply(), "k:" + i);
        }
        assertEquals(
            ":" + KEYS, c.call("DBSIZE"), "k:0 to k:" + (KEYS - 1) + " less k:1, and mc:0");
        assertTrue(c.call("INFO", "persistence").contains("loading:0\r\n"));
        assertEquals("VALUE mc:0 0 4", LoadingTest.memcachedCall(memcached, "get mc:0"));
      }
    } finally {
      held.releaseAndClose(server, started, starter);
    }
  }

  /** Sends a memcached command and returns its reply's lines, up to END or an error. */
  private static List<String> memcachedLines(Socket s, String line) throws IOException {
    s.getOutputStream().write((line + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    List<String> lines = new java.util.ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      String l = Client.line(s.getInputStream());
      lines.add(l);
      if (l.equals("END") || l.contains("ERROR")) {
        return lines;
      }
    }
    throw new AssertionError(line + ": no END in 10,000 lines");
  }

  /** Sends a memcached set and returns its reply line. */
  private static String memcachedSet(Socket s, String key, String value) throws IOException {
    s.getOutputStream()
        .write(
            ("set " + key + " 0 0 " + value.length() + "\r\n" + value + "\r\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return Client.line(s.getInputStream());
  }
}
