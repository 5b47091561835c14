package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import dev.larder.testing.RequiredTool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** redis-cli and redis-benchmark (Debian's redis-tools) against a real server. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RedisToolsTest {
  private static LarderServer server;

  @BeforeAll
  static void start() throws Exception {
    server = RunningServer.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String cli(String... args) throws Exception {
    RequiredTool.onPath("redis-cli", "redis-tools");
    String[] command = new String[args.length + 5];
    command[0] = "redis-cli";
    command[1] = "-h";
    command[2] = "127.0.0.1";
    command[3] = "-p";
    command[4] = Integer.toString(server.respPort());
    System.arraycopy(args, 0, command, 5, args.length);
    RunningServer.Run r = RunningServer.run(60, command);
    assertEquals(0, r.exit(), r.out());
    return r.out();
  }

  @Test
  void redisCliCommands() throws Exception {
    assertEquals("PONG\n", cli("ping"));
    assertEquals("OK\n", cli("set", "greeting", "hello world"));
    assertEquals("hello world\n", cli("get", "greeting"));
    assertEquals("3\n", cli("incrby", "n", "3"));
    assertEquals("2\n", cli("hset", "h", "a", "1", "b", "2"));
    assertEquals("a\n1\nb\n2\n", cli("hgetall", "h"));
    assertEquals("a 1\nb 2\n", cli("-3", "hgetall", "h"), "RESP3: a map, printed as pairs");
    assertTrue(cli("info", "keyspace").contains("db0:keys=3"));
    assertTrue(cli("get", "h").startsWith("WRONGTYPE"));
    assertTrue(cli("nosuchcommand").startsWith("ERR unknown command 'nosuchcommand'"));
    assertTrue(cli("command", "docs", "get").contains("summary"));
  }

  @Test
  void redisBenchmarkRunsSetAndGetPipelined() throws Exception {
    RequiredTool.onPath("redis-benchmark", "redis-tools");
    RunningServer.Run r =
        RunningServer.run(
            240,
            "redis-benchmark",
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(server.respPort()),
            "-t",
            "set,get",
            "-n",
            "5000",
            "-c",
            "10",
            "-P",
            "8",
            "-d",
            "100",
            "--dbnum",
            "9",
            "-q");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("SET: ") && r.out().contains("GET: "), r.out());
    assertTrue(r.out().contains("requests per second"), r.out());
    assertEquals("1\n", cli("-n", "9", "dbsize"), "redis-benchmark writes key:__rand_int__");
    assertEquals(100, cli("-n", "9", "get", "key:__rand_int__").length() - 1);
  }
}
