package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** The server's MXBean: INFO's figures over JMX, one name per server, gone on close or off. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerJmxTest {

  private static final MBeanServer MBEANS = ManagementFactory.getPlatformMBeanServer();

  private static LarderServer start(String... settings) throws IOException {
    Map<String, String> m =
        new HashMap<>(Map.of("resp-port", "0", "memcache-port", "-1", "http-port", "0"));
    for (int i = 0; i < settings.length; i += 2) {
      m.put(settings[i], settings[i + 1]);
    }
    return LarderServer.start(ServerConfig.of(m));
  }

  private static Jedis jedis(LarderServer server) {
    return new Jedis(
        new HostAndPort("127.0.0.1", server.respPort()),
        DefaultJedisClientConfig.builder().timeoutMillis(20_000).build());
  }

  private static long info(Jedis jedis, String section, String field) {
    return jedis
        .info(section)
        .lines()
        .filter(l -> l.startsWith(field + ":"))
        .map(l -> Long.parseLong(l.substring(field.length() + 1).strip()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("INFO has no " + field));
  }

  @Test
  void theServersFiguresAreAnMXBeanUntilItCloses() throws Exception {
    ObjectName name;
    try (LarderServer server = start();
        Jedis jedis = jedis(server)) {
      name = new ObjectName(server.mxBeanName().orElseThrow());
      assertTrue(
          name.toString().startsWith("dev.larder:type=Server,name=\"larder-server"),
          name.toString());
      LarderServerMXBean bean = JMX.newMXBeanProxy(MBEANS, name, LarderServerMXBean.class);
      for (int i = 0; i < 100; i++) {
        jedis.set("k" + i, "v" + i);
      }
      jedis.select(1);
      jedis.set("other", "db");
      jedis.select(0);
      jedis.get("k1");
      jedis.get("absent");

      assertEquals(101, bean.getKeys(), "every database's keys");
      assertEquals(server.respPort(), bean.getRespPort());
      assertEquals(0, bean.getMemcachePort(), "off");
      assertEquals(server.httpPort(), bean.getHttpPort());
      assertEquals(1, bean.getConnections());
      assertEquals(info(jedis, "stats", "keyspace_hits"), bean.getKeyspaceHits());
      assertEquals(1, bean.getKeyspaceHits());
      assertEquals(1, bean.getKeyspaceMisses());
      assertEquals(
          info(jedis, "stats", "total_connections_received"), bean.getConnectionsReceived());
      long commands = bean.getCommandsProcessed();
      assertTrue(commands >= 105, "commands " + commands);
      assertEquals(info(jedis, "memory", "used_memory"), bean.getMemoryUsed());
      assertEquals(256L << 20, bean.getMaxMemory());
      assertEquals("allkeys-lfu", bean.getMaxMemoryPolicy());

      // The bound follows CONFIG SET, which rebuilds the keyspace's cache.
      jedis.configSet("maxmemory", "64mb");
      assertEquals(64L << 20, bean.getMaxMemory());
      assertEquals(101, bean.getKeys());

      // A second server in this JVM gets a name of its own.
      ObjectName second;
      try (LarderServer other = start()) {
        second = new ObjectName(other.mxBeanName().orElseThrow());
        assertNotEquals(name, second);
        assertTrue(
            second.toString().startsWith("dev.larder:type=Server,name=\"larder-server-"),
            second.toString());
        assertEquals(
            other.respPort(),
            JMX.newMXBeanProxy(MBEANS, second, LarderServerMXBean.class).getRespPort());
      }
      assertFalse(MBEANS.isRegistered(second), "unregistered on close");
      assertTrue(MBEANS.isRegistered(name), "the first stays");
    }
    assertFalse(MBEANS.isRegistered(name), "unregistered on close");
  }

  @Test
  void jmxNoRegistersNothing() throws Exception {
    ObjectName servers = new ObjectName("dev.larder:type=Server,*");
    int before = MBEANS.queryNames(servers, null).size();
    try (LarderServer server = start("jmx", "no")) {
      assertTrue(server.mxBeanName().isEmpty());
      assertEquals(before, MBEANS.queryNames(servers, null).size());
    }
  }

  @Test
  void jmxTakesYesOrNo() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.of(Map.of("jmx", "maybe")));
    assertEquals("jmx must be yes or no", e.getMessage());
  }
}
