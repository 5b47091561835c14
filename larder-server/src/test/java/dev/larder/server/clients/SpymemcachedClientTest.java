package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.CASResponse;
import net.spy.memcached.CASValue;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.internal.OperationFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * spymemcached, a Java memcached client (text protocol), unchanged against a real server on
 * 127.0.0.1: storage commands, CAS, counters, touch, bulk gets of its pipelined reads, and
 * serialized Java objects and a large byte array through its transcoder's flags.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpymemcachedClientTest {
  private static LarderServer server;
  private static MemcachedClient client;

  @BeforeAll
  static void start() throws Exception {
    server = RunningServer.start();
    client =
        new MemcachedClient(
            new ConnectionFactoryBuilder()
                .setOpTimeout(20_000)
                .setProtocol(ConnectionFactoryBuilder.Protocol.TEXT)
                .build(),
            List.of(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), server.memcachePort())));
  }

  @AfterAll
  static void stop() {
    client.shutdown(5, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void storageRetrievalAndCas() throws Exception {
    assertTrue(client.set("k", 0, "hello").get());
    assertEquals("hello", client.get("k"));
    assertFalse(client.add("k", 0, "other").get());
    assertTrue(client.replace("k", 0, "world").get());
    assertTrue(client.append("k", "!").get());
    assertTrue(client.prepend("k", ">").get());
    assertEquals(">world!", client.get("k"));
    CASValue<Object> gets = client.gets("k");
    assertEquals(CASResponse.OK, client.cas("k", gets.getCas(), "swapped"));
    assertEquals(CASResponse.EXISTS, client.cas("k", gets.getCas(), "again"), "stale unique");
    assertEquals(CASResponse.NOT_FOUND, client.cas("missing", 1, "x"));
    assertEquals("swapped", client.get("k"));
    assertTrue(client.delete("k").get());
    assertNull(client.get("k"));
  }

  @Test
  void objectsFlagsAndBulkGets() throws Exception {
    byte[] big = new byte[512 * 1024];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) (i * 7);
    }
    List<OperationFuture<Boolean>> sets = new ArrayList<>();
    sets.add(client.set("int", 0, 42));
    sets.add(client.set("long", 0, 1L << 40));
    sets.add(client.set("list", 0, new ArrayList<>(List.of("a", "b"))));
    sets.add(client.set("big", 0, big));
    for (int i = 0; i < 200; i++) {
      sets.add(client.set("bulk" + i, 0, "v" + i));
    }
    for (OperationFuture<Boolean> f : sets) {
      assertTrue(f.get(20, TimeUnit.SECONDS), f.getKey());
    }
    assertEquals(42, client.get("int"));
    assertEquals(1L << 40, client.get("long"));
    assertEquals(List.of("a", "b"), client.get("list"));
    assertArrayEquals(big, (byte[]) client.get("big"));
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      keys.add("bulk" + i);
    }
    keys.add("missing");
    Map<String, Object> bulk = client.getBulk(keys);
    assertEquals(200, bulk.size());
    for (int i = 0; i < 200; i++) {
      assertEquals("v" + i, bulk.get("bulk" + i));
    }
  }

  @Test
  void countersTouchAndFlush() throws Exception {
    assertEquals(10, client.incr("c", 1, 10));
    assertEquals(15, client.incr("c", 5));
    assertEquals(12, client.decr("c", 3));
    assertEquals(-1, client.incr("absent", 1), "no default: a miss");
    assertTrue(client.set("t", 100, "x").get());
    assertTrue(client.touch("t", 200).get());
    // (spymemcached sends get-and-touch in its binary protocol only)
    assertTrue(client.flush().get());
    assertNull(client.get("t"));
    assertFalse(client.getStats().values().iterator().next().isEmpty());
    assertFalse(client.getVersions().isEmpty());
  }

  @Test
  void readsTheStatsFieldsMemcachedReports() {
    client.get("never-set");
    java.util.Map<String, String> general = client.getStats().values().iterator().next();
    for (String field :
        java.util.List.of(
            "get_expired",
            "get_flushed",
            "bytes_read",
            "bytes_written",
            "listen_disabled_num",
            "rusage_user",
            "log_watchers",
            "lrutail_reflocked")) {
      assertTrue(general.containsKey(field), field);
    }
    assertTrue(Long.parseLong(general.get("bytes_read")) > 0);
    assertTrue(Long.parseLong(general.get("bytes_written")) > 0);
    java.util.Map<String, String> conns = client.getStats("conns").values().iterator().next();
    assertEquals("conn_listening", conns.get("0:state"));
    assertTrue(conns.containsValue("conn_parse_cmd"), conns.toString());
  }
}
