package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import dev.larder.testing.RequiredTool;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.utils.AddrUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Passwords with real clients on a real server (127.0.0.1): requirepass, an aclfile user and a
 * memcached auth file, through redis-cli, Jedis, xmemcached and raw sockets.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AuthClientsTest {
  @TempDir static Path dir;
  private static LarderServer server;

  @BeforeAll
  static void start() throws Exception {
    Path acl = dir.resolve("users.acl");
    Files.writeString(
        acl,
        """
        user default on >adminpw ~* &* +@all
        user app on >apppw ~app:* +@all -@dangerous
        """);
    Path auth = dir.resolve("memcached.auth");
    Files.writeString(auth, "mc:mcpw\n");
    server = RunningServer.start("aclfile", acl.toString(), "memcache-auth-file", auth.toString());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String cli(String... args) throws Exception {
    RequiredTool.onPath("redis-cli", "redis-tools");
    String[] command = new String[args.length + 6];
    command[0] = "redis-cli";
    command[1] = "-h";
    command[2] = "127.0.0.1";
    command[3] = "-p";
    command[4] = Integer.toString(server.respPort());
    command[5] = "--no-auth-warning";
    System.arraycopy(args, 0, command, 6, args.length);
    // redis-cli ends an error with a blank line (as with Redis); compare without it.
    return RunningServer.run(60, command).out().strip() + "\n";
  }

  @Test
  void redisCliWithPasswordAndUser() throws Exception {
    assertEquals("NOAUTH Authentication required.\n", cli("ping"));
    assertEquals("PONG\n", cli("-a", "adminpw", "ping"));
    assertTrue(
        cli("-a", "wrong", "ping")
            .contains(
                "AUTH failed: WRONGPASS invalid username-password pair or user is disabled."));
    assertEquals("OK\n", cli("--user", "app", "--pass", "apppw", "set", "app:1", "v"));
    assertEquals("v\n", cli("--user", "app", "--pass", "apppw", "get", "app:1"));
    assertEquals(
        "NOPERM No permissions to access a key\n",
        cli("--user", "app", "--pass", "apppw", "get", "other"));
    assertEquals(
        "NOPERM User app has no permissions to run the 'flushall' command\n",
        cli("--user", "app", "--pass", "apppw", "flushall"));
    assertEquals(
        "NOPERM User app has no permissions to run the 'acl' command\n",
        cli("--user", "app", "--pass", "apppw", "-3", "acl", "whoami"),
        "ACL is @admin @dangerous as a whole in Larder");
    assertEquals("default\n", cli("-a", "adminpw", "-3", "acl", "whoami"));
    assertTrue(cli("-a", "adminpw", "acl", "list").contains("user app on #"));
  }

  @Test
  void redisBenchmarkAuthenticatesEveryConnection() throws Exception {
    RequiredTool.onPath("redis-benchmark", "redis-tools");
    RunningServer.Run r =
        RunningServer.run(
            120,
            "redis-benchmark",
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(server.respPort()),
            "--user",
            "app",
            "-a",
            "apppw",
            "-t",
            "set,get",
            "-n",
            "2000",
            "-c",
            "5",
            "-d",
            "10",
            "--dbnum",
            "3",
            "-q");
    // redis-benchmark's keys are key:__rand_int__, outside app's ~app:* pattern.
    assertTrue(r.out().contains("NOPERM No permissions to access a key"), r.out());
    r =
        RunningServer.run(
            120,
            "redis-benchmark",
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(server.respPort()),
            "-a",
            "adminpw",
            "-t",
            "set,get",
            "-n",
            "2000",
            "-c",
            "5",
            "-d",
            "10",
            "--dbnum",
            "3",
            "-q");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("SET: ") && r.out().contains("GET: "), r.out());
    assertEquals("1\n", cli("-a", "adminpw", "-n", "3", "dbsize"));
  }

  @Test
  void jedisAuthenticatesWithUserOrPassword() {
    for (RedisProtocol protocol : new RedisProtocol[] {RedisProtocol.RESP2, RedisProtocol.RESP3}) {
      HostAndPort at = new HostAndPort("127.0.0.1", server.respPort());
      try (Jedis j =
          new Jedis(
              at,
              DefaultJedisClientConfig.builder()
                  .protocol(protocol)
                  .user("app")
                  .password("apppw")
                  .timeoutMillis(20_000)
                  .build())) {
        assertEquals("OK", j.set("app:j", "1"));
        JedisDataException denied = assertThrows(JedisDataException.class, () -> j.get("x"));
        assertEquals("NOPERM No permissions to access a key", denied.getMessage());
      }
      try (Jedis j =
          new Jedis(
              at,
              DefaultJedisClientConfig.builder()
                  .protocol(protocol)
                  .password("adminpw")
                  .timeoutMillis(20_000)
                  .build())) {
        assertEquals("1", j.get("app:j"));
        assertEquals("default", j.aclWhoAmI());
      }
    }
    // Without credentials (RESP2: with RESP3 Jedis's first HELLO 3 is refused, as by Redis).
    try (Jedis j =
        new Jedis(
            new HostAndPort("127.0.0.1", server.respPort()),
            DefaultJedisClientConfig.builder().timeoutMillis(20_000).build())) {
      JedisDataException noAuth = assertThrows(JedisDataException.class, () -> j.get("k"));
      assertEquals("NOAUTH Authentication required.", noAuth.getMessage());
      JedisDataException wrong =
          assertThrows(JedisDataException.class, () -> j.auth("app", "nope"));
      assertTrue(wrong.getMessage().startsWith("WRONGPASS"), wrong.getMessage());
      assertEquals("OK", j.auth("app", "apppw"));
      assertEquals("1", j.get("app:j"));
    }
  }

  @Test
  void xmemcachedAuthenticatesWithTheAuthSet() throws Exception {
    XMemcachedClientBuilder builder =
        new XMemcachedClientBuilder(AddrUtil.getAddresses("127.0.0.1:" + server.memcachePort()));
    builder.setOpTimeout(20_000);
    builder.setConnectTimeout(20_000);
    MemcachedClient client = builder.build();
    try {
      // One connection (xmemcached's default pool): the auth set authenticates it.
      Exception refused = assertThrows(Exception.class, () -> client.get("k"));
      assertTrue(
          String.valueOf(refused.getMessage()).contains("unauthenticated"),
          String.valueOf(refused.getMessage()));
      assertTrue(client.set("auth", 0, "mc mcpw"));
      assertTrue(client.set("k", 0, "v"));
      assertEquals("v", client.get("k"));
    } finally {
      client.shutdown();
    }
  }

  @Test
  void rawSocketsGetTheProtocolsErrors() throws Exception {
    assertEquals(
        "-NOAUTH Authentication required.\r\n", exchange(server.respPort(), "GET k\r\n", 34));
    assertEquals(
        "+OK\r\n$-1\r\n", exchange(server.respPort(), "AUTH adminpw\r\nGET raw:none\r\n", 10));
    assertEquals(
        "CLIENT_ERROR unauthenticated\r\n", exchange(server.memcachePort(), "get k\r\n", 30));
    assertEquals(
        "STORED\r\nEND\r\n",
        exchange(server.memcachePort(), "set a 0 0 7\r\nmc mcpw\r\nget nokey\r\n", 13));
    assertTrue(server.passwordRequired());
    assertTrue(server.authenticate("app", "apppw"));
    assertTrue(server.authenticate("default", "adminpw"));
    assertFalse(server.authenticate("app", "adminpw"));
  }

  private static String exchange(int port, String request, int replyBytes) throws Exception {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readNBytes(replyBytes), StandardCharsets.US_ASCII);
    }
  }
}
