package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * Three Larder servers in one cluster (replicated, synchronous, quorum), reached by plain clients:
 * any member serves any key (forwarding to its owners), and the keyspace's semantics hold across
 * members: memcached CAS uniques, WATCH versions, expiry stamped once in the value. The Redis
 * Cluster commands describe the cluster; ROLE, WAIT and INFO answer what a Redis user checks.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusteredServerTest {
  private static LoopbackCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = new LoopbackCluster(3);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static Jedis jedis(LarderServer m) {
    return new Jedis("127.0.0.1", m.respPort(), 20_000);
  }

  @Test
  void everyMemberServesEveryKey() {
    try (Jedis a = jedis(cluster.member(0));
        Jedis b = jedis(cluster.member(1));
        Jedis c = jedis(cluster.member(2))) {
      Jedis[] all = {a, b, c};
      for (int i = 0; i < 300; i++) {
        assertEquals("OK", all[i % 3].set("any:" + i, "v" + i));
      }
      for (int i = 0; i < 300; i++) {
        assertEquals("v" + i, all[(i + 1) % 3].get("any:" + i), "any:" + i);
      }
      assertEquals(5L, a.incrBy("counter", 5));
      assertEquals(7L, b.incrBy("counter", 2));
      assertEquals("7", c.get("counter"));
      assertEquals(2L, b.hset("hash", java.util.Map.of("f", "1", "g", "2")));
      assertEquals("2", c.hget("hash", "g"));
      assertEquals(1L, c.del("any:0"));
      assertNull(a.get("any:0"));
      assertTrue(a.dbSize() >= 301, "DBSIZE counts the whole cluster's keys");
    }
  }

  @Test
  void wholeValueCommandsWriteThroughTheCluster() {
    try (Jedis a = jedis(cluster.member(0));
        Jedis b = jedis(cluster.member(1))) {
      a.hset("tx:h", java.util.Map.of("f", "1"));
      assertTrue(a.copy("tx:h", "tx:copy", false));
      a.set("tx:m", "moved");
      assertEquals(1L, a.move("tx:m", 4));
      byte[] dump = a.dump("tx:h");
      assertEquals("OK", a.restore("tx:restored", 0, dump));
      a.setbit("tx:bits", 3, true);
      assertEquals("1", b.hget("tx:copy", "f"));
      assertEquals("1", b.hget("tx:restored", "f"));
      assertTrue(b.getbit("tx:bits", 3));
      assertNull(b.get("tx:m"));
      b.select(4);
      assertEquals("moved", b.get("tx:m"));
    }
  }

  @Test
  void listsAcrossMembersAndABlockedClientServedByAPushThroughAnother() throws Exception {
    try (Jedis a = jedis(cluster.member(0));
        Jedis b = jedis(cluster.member(1));
        Jedis c = jedis(cluster.member(2))) {
      assertEquals(3L, a.rpush("clustered-list", "1", "2", "3"));
      assertEquals("1", b.lpop("clustered-list"));
      assertEquals(List.of("2", "3"), c.lrange("clustered-list", 0, -1));
      assertEquals("list", b.type("clustered-list"));
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newSingleThreadExecutor();
      try {
        java.util.concurrent.Future<redis.clients.jedis.util.KeyValue<String, String>> popped =
            pool.submit(() -> a.blpop(20.0, "clustered-queue"));
        // Once the client is blocked on member 0, a push through member 1 serves it.
        try (Jedis watcher = jedis(cluster.member(0))) {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
          while (!watcher.info("clients").contains("blocked_clients:1")) {
            assertTrue(System.nanoTime() < deadline, "the client never blocked");
            Thread.sleep(10);
          }
        }
        b.rpush("clustered-queue", "v");
        assertEquals("v", popped.get(10, TimeUnit.SECONDS).getValue());
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void watchSeesAWriteThroughAnotherMember() {
    try (Jedis a = jedis(cluster.member(0));
        Jedis b = jedis(cluster.member(1))) {
      a.set("watched", "1");
      a.watch("watched");
      b.set("watched", "2");
      Transaction t = a.multi();
      t.set("watched", "3");
      assertNull(t.exec(), "EXEC fails: the key changed on another member after WATCH");
      assertEquals("2", a.get("watched"));
    }
  }

  @Test
  void expiryIsStampedOnceAndHoldsOnEveryMember() throws Exception {
    try (Jedis a = jedis(cluster.member(0));
        Jedis c = jedis(cluster.member(2))) {
      long start = System.nanoTime();
      a.set("short", "v", SetParams.setParams().px(2000));
      long ttl = c.pttl("short");
      long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(
          ttl > 2000 - elapsed - 50 && ttl <= 2000,
          "the deadline travels with the value: " + ttl + " ms left after " + elapsed + " ms");
      LoopbackCluster.await(() -> c.get("short") == null, "the key expires on member 2");
      assertTrue(
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) >= 2000,
          "not before its deadline");
      assertNull(a.get("short"));
      assertEquals(-2L, a.pttl("short"));
    }
  }

  @Test
  void memcachedCasUniquesHoldAcrossMembers() throws Exception {
    try (Memcached a = new Memcached(cluster.member(0));
        Memcached b = new Memcached(cluster.member(1));
        Memcached c = new Memcached(cluster.member(2))) {
      assertEquals("STORED", a.command("set mk 5 0 2\r\nv1"));
      String[] value = b.command("gets mk").split(" ");
      assertEquals("VALUE", value[0], String.join(" ", value));
      assertEquals("5", value[2], "client flags travel with the value");
      String cas = value[4].strip();
      assertEquals("STORED", c.command("cas mk 0 0 2 " + cas + "\r\nv2"));
      assertEquals(
          "EXISTS",
          a.command("cas mk 0 0 2 " + cas + "\r\nv3"),
          "a CAS unique names one write, whichever member took it");
      assertTrue(b.command("get mk").contains("v2"));
    }
  }

  @Test
  void writesThroughDifferentMembersGetDistinctCasUniques() throws Exception {
    try (Memcached a = new Memcached(cluster.member(0));
        Memcached b = new Memcached(cluster.member(1));
        Memcached c = new Memcached(cluster.member(2))) {
      Memcached[] all = {a, b, c};
      Set<String> uniques = new HashSet<>();
      for (int i = 0; i < 60; i++) {
        assertEquals("STORED", all[i % 3].command("set distinct 0 0 1\r\n" + (i % 10)));
        String unique = a.command("gets distinct").split(" ", -1)[4];
        assertTrue(uniques.add(unique), "write " + i + " reused CAS unique " + unique);
      }
    }
  }

  @Test
  @SuppressWarnings("deprecation") // Jedis 7 deprecates clusterSlots() with CLUSTER SLOTS itself
  void clusterCommandsDescribeTheCluster() {
    try (Jedis a = jedis(cluster.member(0))) {
      assertEquals(12182L, a.clusterKeySlot("foo"));
      assertEquals(a.clusterKeySlot("user1000"), a.clusterKeySlot("{user1000}.following"));
      assertTrue(a.clusterInfo().contains("cluster_state:ok"));
      assertTrue(a.clusterInfo().contains("cluster_known_nodes:3"));
      List<Object> slots = a.clusterSlots();
      Set<Long> covered = new HashSet<>();
      long total = 0;
      for (Object range : slots) {
        List<?> r = (List<?>) range;
        total += (Long) r.get(1) - (Long) r.get(0) + 1;
        assertEquals(5, r.size(), "a master and two replicas (replicated mode)");
        covered.add((Long) r.get(0));
      }
      assertEquals(16384, total);
      assertEquals(slots.size(), covered.size(), "no two ranges start at the same slot");
      String[] nodes = a.clusterNodes().split("\n");
      assertEquals(3, nodes.length);
      long mine = java.util.Arrays.stream(nodes).filter(l -> l.contains("myself")).count();
      assertEquals(1, mine);
      assertEquals(40, a.clusterMyId().length());
      assertTrue(a.info("replication").contains("connected_slaves:2"));
      assertTrue(a.info("cluster").contains("cluster_enabled:1"));
      assertEquals(2L, a.waitReplicas(2, 100), "every write is on both other members");
      assertEquals("master", ((List<?>) a.role()).getFirst());
      // members without a log wait for no segment, so there is nothing to give up
      assertEquals(0L, a.sendCommand(Protocol.Command.CLUSTER, "WAITING"));
      assertEquals(0L, a.sendCommand(Protocol.Command.CLUSTER, "ABANDON-WAITING"));
    }
  }

  @Test
  void readonlyConnectionsAreRedirectedPlainOnesForwarded() {
    try (Jedis a = jedis(cluster.member(0))) {
      String self = cluster.member(0).clusterNodeName();
      String found = null;
      for (int i = 0; found == null; i++) {
        String key = "redirect:" + i;
        String[] line = masterLine(a, a.clusterKeySlot(key));
        if (!line[1].startsWith("127.0.0.1:" + cluster.member(0).respPort() + "@")) {
          found = key;
        }
      }
      String foreign = found;
      a.set(foreign, "x");
      a.readonly();
      JedisDataException moved =
          org.junit.jupiter.api.Assertions.assertThrows(
              JedisDataException.class, () -> a.set(foreign, "z"));
      assertTrue(
          moved.getMessage().startsWith("MOVED " + a.clusterKeySlot(foreign) + " "),
          moved.getMessage());
      assertEquals("x", a.get(foreign), "a READONLY read is served by a replica: " + self);
      assertTrue(
          org.junit.jupiter.api.Assertions.assertThrows(
                  JedisDataException.class, () -> a.mset("{a}1", "1", "{b}2", "2"))
              .getMessage()
              .startsWith("CROSSSLOT"));
    }
  }

  /**
   * SORT on plain connections reads its BY and GET keys through the cluster and its STORE is a
   * write every member sees; a connection that asked for redirections gets Redis Cluster 7.0's
   * refusal of BY and GET patterns instead.
   */
  @Test
  void sortReadsPatternsAcrossMembersUnlessRedirected() {
    try (Jedis a = jedis(cluster.member(0));
        Jedis b = jedis(cluster.member(1));
        Jedis c = jedis(cluster.member(2))) {
      b.rpush("sort:l", "1", "2", "3");
      b.mset("sort:w_1", "30", "sort:w_2", "10", "sort:w_3", "20");
      assertEquals(
          List.of("2", "10", "3", "20", "1", "30"),
          a.sort(
              "sort:l",
              new redis.clients.jedis.params.SortingParams().by("sort:w_*").get("#", "sort:w_*")));
      assertEquals(
          3L,
          a.sort(
              "sort:l",
              new redis.clients.jedis.params.SortingParams().by("sort:w_*").desc(),
              "sort:out"));
      assertEquals(List.of("1", "3", "2"), c.lrange("sort:out", 0, -1));
      String own = null;
      for (int i = 0; own == null; i++) {
        String key = "sort:own:" + i;
        if (masterLine(a, a.clusterKeySlot(key))[1].startsWith(
            "127.0.0.1:" + cluster.member(0).respPort() + "@")) {
          own = key;
        }
      }
      String mine = own;
      a.rpush(mine, "b", "a");
      a.readonly();
      assertEquals(
          "ERR BY option of SORT denied in Cluster mode.",
          org.junit.jupiter.api.Assertions.assertThrows(
                  JedisDataException.class,
                  () -> a.sort(mine, new redis.clients.jedis.params.SortingParams().by("w_*")))
              .getMessage());
      assertEquals(
          "ERR GET option of SORT denied in Cluster mode.",
          org.junit.jupiter.api.Assertions.assertThrows(
                  JedisDataException.class,
                  () -> a.sort(mine, new redis.clients.jedis.params.SortingParams().get("#")))
              .getMessage());
      assertEquals(
          List.of("b", "a"),
          a.sort(mine, new redis.clients.jedis.params.SortingParams().by("nosort")));
      assertTrue(
          org.junit.jupiter.api.Assertions.assertThrows(
                  JedisDataException.class,
                  () ->
                      a.sort(
                          mine, new redis.clients.jedis.params.SortingParams().alpha(), "{x}other"))
              .getMessage()
              .startsWith("CROSSSLOT"));
    }
  }

  /** Returns the CLUSTER NODES line of the master of a slot. */
  private static String[] masterLine(Jedis j, long slot) {
    for (String line : j.clusterNodes().lines().toList()) {
      String[] f = line.split(" ");
      for (int i = 8; i < f.length; i++) {
        String[] range = f[i].split("-", -1);
        long from = Long.parseLong(range[0]);
        long to = range.length > 1 ? Long.parseLong(range[1]) : from;
        if (slot >= from && slot <= to) {
          return f;
        }
      }
    }
    throw new AssertionError("no master for slot " + slot);
  }

  /** A memcached text-protocol connection. */
  static final class Memcached implements AutoCloseable {
    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;

    Memcached(LarderServer m) throws Exception {
      socket = new Socket(InetAddress.getLoopbackAddress(), m.memcachePort());
      socket.setSoTimeout(20_000);
      in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
      out = socket.getOutputStream();
    }

    /** Sends a command (and its data block); returns the reply up to END or its one line. */
    String command(String command) throws Exception {
      out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      StringBuilder reply = new StringBuilder();
      String line = in.readLine();
      while (line.startsWith("VALUE")) {
        reply.append(line).append(' ').append(in.readLine()).append('\n');
        line = in.readLine();
      }
      return reply.isEmpty() ? line : reply.toString();
    }

    @Override
    public void close() throws java.io.IOException {
      socket.close();
    }
  }
}
