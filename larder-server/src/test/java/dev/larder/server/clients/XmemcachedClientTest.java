package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.rubyeye.xmemcached.GetsResponse;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.utils.AddrUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** xmemcached, a Java memcached client (text protocol), unchanged against a real server. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XmemcachedClientTest {
  private static LarderServer server;
  private static MemcachedClient client;

  @BeforeAll
  static void start() throws Exception {
    server = RunningServer.start();
    XMemcachedClientBuilder builder =
        new XMemcachedClientBuilder(AddrUtil.getAddresses("127.0.0.1:" + server.memcachePort()));
    builder.setOpTimeout(20_000);
    builder.setConnectTimeout(20_000);
    client = builder.build();
  }

  @AfterAll
  static void stop() throws Exception {
    client.shutdown();
    server.close();
  }

  @Test
  void storageRetrievalAndCas() throws Exception {
    assertTrue(client.set("k", 0, "hello"));
    assertEquals("hello", client.get("k"));
    assertFalse(client.add("k", 0, "other"));
    assertTrue(client.replace("k", 0, "world"));
    assertTrue(client.append("k", "!"));
    assertTrue(client.prepend("k", ">"));
    assertEquals(">world!", client.get("k"));
    GetsResponse<String> gets = client.gets("k");
    assertTrue(client.cas("k", 0, "swapped", gets.getCas()));
    assertFalse(client.cas("k", 0, "again", gets.getCas()), "stale CAS unique");
    assertEquals("swapped", client.get("k"));
    client.set("a", 0, 42);
    Map<String, Object> many = client.get(List.of("k", "a", "missing"));
    assertEquals(Map.of("k", "swapped", "a", 42), many, "Java objects keep their flags");
    assertTrue(client.delete("k"));
    assertNull(client.get("k"));
  }

  @Test
  void countersTouchAndFlush() throws Exception {
    assertEquals(10, client.incr("c", 1, 10));
    assertEquals(15, client.incr("c", 5));
    assertEquals(12, client.decr("c", 3));
    assertTrue(client.set("t", 100, "x"));
    assertTrue(client.touch("t", 200));
    client.flushAll();
    assertNull(client.get("t"));
    Map<?, Map<String, String>> stats = client.getStats();
    assertTrue(stats.values().iterator().next().containsKey("curr_connections"));
    Map<String, String> general = stats.values().iterator().next();
    for (String field : new String[] {"get_expired", "get_flushed", "bytes_written", "reclaimed"}) {
      assertTrue(general.containsKey(field), field);
    }
    assertFalse(client.getVersions().isEmpty());
  }
}
