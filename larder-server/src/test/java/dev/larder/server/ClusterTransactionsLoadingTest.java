package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusteredTxMember;
import dev.larder.server.LoadingTest.Client;
import dev.larder.server.LoadingTest.HeldLog;
import dev.larder.server.clients.ClusterPorts;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable member with {@code cluster-transactions on} binds RESP, memcached and HTTP before its
 * transactional store recovers its log, answers {@code -LOADING} (memcached: {@code SERVER_ERROR};
 * HTTP: 503) while the store recovers and until it has joined, and then serves every acknowledged
 * write: a client connecting meanwhile gets LOADING, never a missing or wrong value. The recovery
 * is held still at its first read of a log segment until the test lets it go (as in {@link
 * ClusterLoadingTest}), so nothing depends on the recovery being slow.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterTransactionsLoadingTest {
  private static final int KEYS = 300;
  private static final int EXECS = 5;
  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  @TempDir Path dir;

  private final String cluster =
      "tx-loading-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
  private int respPort;
  private int clusterPort;

  ClusterTransactionsLoadingTest() throws IOException {
    respPort = ClusterPorts.resp();
    clusterPort = ClusterPorts.transactionalCluster();
  }

  /** A transactional member founding a cluster of one, on the same ports and directory. */
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
    m.put("cluster-size", "1");
    m.put("cluster-transactions", "on");
    m.put("dir", dir.toString());
    m.put("appendfsync", "always");
    return ServerConfig.of(m);
  }

  /** The first start, on fresh ports if one found free was taken by the time it was bound. */
  private LarderServer firstStart() throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return LarderServer.start(config());
      } catch (IOException | RuntimeException e) {
        if (attempt == 5 || !ClusterPorts.taken(e)) {
          throw e;
        }
        System.err.println("ClusterTransactionsLoadingTest: a port was taken (" + e + ")");
        respPort = ClusterPorts.resp();
        clusterPort = ClusterPorts.transactionalCluster();
      }
    }
  }

  /** Writes KEYS keys and EXECS transactions, each acknowledged; returns the EXECs' ids. */
  private List<String> writeData() throws IOException {
    List<String> acknowledged = new ArrayList<>();
    try (LarderServer server = firstStart();
        Client c = new Client(server.respPort())) {
      assertTrue(server.clusteredTxMember().isPresent(), "a transactional member");
      for (int i = 0; i < KEYS; i++) {
        c.send("SET", "k:" + i, "v" + i);
      }
      for (int i = 0; i < KEYS; i++) {
        assertEquals("+OK", c.reply(), "SET k:" + i);
      }
      for (int i = 0; i < EXECS; i++) {
        assertEquals("+OK", c.call("MULTI"));
        assertEquals("+QUEUED", c.call("INCR", "tx:a"));
        assertEquals("+QUEUED", c.call("INCR", "tx:b"));
        assertEquals("+QUEUED", c.call("RPUSH", "tx:log", "e" + i));
        int n = i + 1;
        assertEquals("[:" + n + ", :" + n + ", :" + n + "]", c.call("EXEC"), "EXEC e" + i);
        acknowledged.add("e" + i);
      }
    }
    return acknowledged;
  }

  @Test
  void aRestartedMemberAnswersLoadingUntilItsStoreRecoveredAndJoinedThenServesEveryWrite()
      throws Exception {
    List<String> acknowledged = writeData();
    HeldLog held = new HeldLog();
    CompletableFuture<LarderServer> whileLoading = new CompletableFuture<>();
    ExecutorService starter = Executors.newSingleThreadExecutor();
    ExecutorService poller = Executors.newSingleThreadExecutor();
    Future<LarderServer> started =
        starter.submit(
            () -> LarderServer.start(config(), false, held.files(), whileLoading::complete));
    LarderServer server = null;
    try {
      assertTrue(held.reached.await(60, TimeUnit.SECONDS), "the recovery never read its log");
      LarderServer loading = whileLoading.get(60, TimeUnit.SECONDS);
      assertEquals(respPort, loading.respPort());
      // the cluster's own cache joins first; the transactional store is the one held
      assertEquals(Optional.empty(), loading.clusteredTxMember(), "joined before it recovered");

      // a client connecting during the recovery: LOADING, or (once loaded) the acknowledged value
      CountDownLatch sawLoading = new CountDownLatch(1);
      Future<Integer> polled = poller.submit(() -> pollUntilServed(sawLoading));

      try (Client c = new Client(loading.respPort());
          Socket memcached = LoadingTest.connect(loading.memcachePort())) {
        assertEquals(LoadingTest.LOADING, c.call("PING"));
        assertEquals(LoadingTest.LOADING, c.call("GET", "k:0"));
        assertEquals(LoadingTest.LOADING, c.call("SET", "k:0", "during"));
        assertEquals(LoadingTest.LOADING, c.call("LRANGE", "tx:log", "0", "-1"));
        assertEquals(LoadingTest.LOADING, c.call("DBSIZE"));
        assertEquals(LoadingTest.LOADING, c.call("CLUSTER", "SLOTS"));
        assertEquals(LoadingTest.LOADING, c.call("WATCH", "tx:a"));
        // a queue of what runs while loading runs outside the store, which has not joined yet
        assertEquals("+OK", c.call("MULTI"));
        assertEquals("+QUEUED", c.call("ECHO", "hi"));
        assertEquals("[hi]", c.call("EXEC"));
        assertEquals("+OK", c.call("MULTI"));
        assertEquals(LoadingTest.LOADING, c.call("INCR", "tx:a"));
        assertTrue(c.call("EXEC").startsWith("-EXECABORT"), "EXEC of a refused queue");
        assertTrue(c.call("ROLE").startsWith("[master"), "ROLE while loading");
        String info = c.call("INFO", "everything");
        assertFalse(info.startsWith("-"), info);
        assertTrue(info.contains("loading:1\r\n"), info);
        assertEquals(
            "SERVER_ERROR loading the dataset in memory",
            LoadingTest.memcachedCall(memcached, "get k:0"));
        LoadingTest.assertHttpLoading(loading);
        assertTrue(sawLoading.await(60, TimeUnit.SECONDS), "the poller never got an answer");

        held.release.countDown();
        server = started.get(60, TimeUnit.SECONDS);

        assertTrue(polled.get(60, TimeUnit.SECONDS) >= 1, "LOADING answers the poller saw");
        ClusteredTxMember tx = server.clusteredTxMember().orElseThrow();
        assertEquals(List.of("m0"), tx.members());
        assertEquals("+PONG", c.call("PING"));
        for (int i = 0; i < KEYS; i++) {
          c.send("GET", "k:" + i);
        }
        for (int i = 0; i < KEYS; i++) {
          assertEquals("v" + i, c.reply(), "k:" + i);
        }
        assertEquals(acknowledged.toString(), c.call("LRANGE", "tx:log", "0", "-1"));
        assertEquals(Integer.toString(EXECS), c.call("GET", "tx:a"));
        assertEquals(Integer.toString(EXECS), c.call("GET", "tx:b"));
        assertEquals(":" + (KEYS + 3), c.call("DBSIZE"));
        assertTrue(c.call("INFO", "persistence").contains("loading:0\r\n"));
        assertEquals(200, LoadingTest.httpGet(server.httpPort(), "/api/caches").status());
        // and it commits again, through its recovered store
        assertEquals("+OK", c.call("MULTI"));
        assertEquals("+QUEUED", c.call("INCR", "tx:a"));
        assertEquals("[:" + (EXECS + 1) + "]", c.call("EXEC"));
      }
    } finally {
      poller.shutdownNow();
      held.releaseAndClose(server, started, starter);
    }
  }

  /**
   * Connects afresh and asks for k:7 until it is served (every 20 ms, at most 90 s), counting the
   * LOADING answers; any other answer than LOADING or k:7's acknowledged value fails.
   */
  private int pollUntilServed(CountDownLatch sawLoading) throws Exception {
    int loadingAnswers = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      String reply;
      try (Client c = new Client(respPort)) {
        reply = c.call("GET", "k:7");
      }
      if (!LoadingTest.LOADING.equals(reply)) {
        assertEquals("v7", reply, "k:7 once the member answered");
        return loadingAnswers;
      }
      loadingAnswers++;
      sawLoading.countDown();
      Thread.sleep(20);
    }
    throw new AssertionError("k:7 was not served within 90 s");
  }
}
