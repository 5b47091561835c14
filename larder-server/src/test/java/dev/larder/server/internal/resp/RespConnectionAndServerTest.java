package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Connection, server and protocol-level behaviour: pipelining, errors, AUTH, INFO, COMMAND. */
class RespConnectionAndServerTest {

  @Test
  void pipelinedCommandsAnswerInOrderInOneWrite() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      String batch =
          TestServer.Connection.multibulk("SET", "a", "1")
              + TestServer.Connection.multibulk("INCR", "a")
              + "PING\r\n"
              + TestServer.Connection.multibulk("GET", "a")
              + TestServer.Connection.multibulk("ECHO", "hi");
      assertEquals("+OK\r\n:2\r\n+PONG\r\n$1\r\n2\r\n$2\r\nhi\r\n", c.raw(batch));
    }
  }

  /** INFO's used_memory_rss is the process's resident set (Linux's VmRSS), not the heap. */
  @Test
  void usedMemoryRssIsTheResidentSet() throws Exception {
    try (TestServer server = new TestServer()) {
      long before = vmRss();
      String info = server.resp().cmd("INFO", "memory");
      long after = vmRss();
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("used_memory_rss:(\\d+)\r\n").matcher(info);
      assertTrue(m.find(), info);
      long rss = Long.parseLong(m.group(1));
      long slack = 16L << 20;
      assertTrue(
          rss >= Math.min(before, after) - slack && rss <= Math.max(before, after) + slack,
          "used_memory_rss " + rss + " against VmRSS " + before + ".." + after);
    }
  }

  private static long vmRss() throws java.io.IOException {
    java.nio.file.Path status = java.nio.file.Path.of("/proc/self/status");
    for (String line : java.nio.file.Files.readAllLines(status)) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new AssertionError("no VmRSS: these tests run on Linux");
  }

  @Test
  void requestsSplitAtEveryByteAreReassembled() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      byte[] req =
          TestServer.Connection.multibulk("SET", "key", "value").getBytes(StandardCharsets.UTF_8);
      StringBuilder replies = new StringBuilder();
      for (byte b : req) {
        replies.append(c.raw(new byte[] {b}));
      }
      assertEquals("+OK\r\n", replies.toString());
      assertEquals("$5\r\nvalue\r\n", c.cmd("GET", "key"));
    }
  }

  @Test
  void inlineCommandsWithQuotes() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      assertEquals("+OK\r\n", c.raw("SET k \"a b\\x41\\n\"\r\n"));
      assertEquals("$5\r\na bA\n\r\n", c.cmd("GET", "k"));
      assertEquals("+OK\r\n", c.raw("set q 'it\\'s'\r\n"));
      assertEquals("$4\r\nit's\r\n", c.cmd("GET", "q"));
    }
  }

  /**
   * Count and length lines of every shape read alike, whole or split anywhere: the common {@code
   * *n\r\n} and {@code $n\r\n} read in one pass, and the rest (leading zeros, a bare LF, digits
   * past what the one pass reads) by the general path.
   */
  @Test
  void countAndLengthLinesOfEveryShapeAreRead() {
    try (TestServer server = new TestServer()) {
      String[][] cases = {
        {"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n", "+OK\r\n"},
        {"*3\r\n$03\r\nSET\r\n$001\r\nk\r\n$2\r\nv2\r\n", "+OK\r\n"},
        {"*3\r\n$3\nSET\r\n$1\nk\r\n$2\nv3\r\n", "+OK\r\n"},
        {"*2\r\n$0000000000000000003\r\nGET\r\n$000000000000000001\r\nk\r\n", "$2\r\nv3\r\n"},
        {"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "$0\r\n\r\n"},
        {"*03\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv4\r\n", "+OK\r\n"},
        {"*2\n$3\r\nGET\r\n$1\r\nk\r\n", "$2\r\nv4\r\n"},
        {"*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n", "+PONG\r\n"},
      };
      for (String[] c : cases) {
        assertEquals(c[1], server.resp().raw(c[0]), c[0]);
        // the same request split after each byte, then in two at every place
        TestServer.Connection split = server.resp();
        byte[] req = c[0].getBytes(StandardCharsets.UTF_8);
        StringBuilder replies = new StringBuilder();
        for (byte b : req) {
          replies.append(split.raw(new byte[] {b}));
        }
        assertEquals(c[1], replies.toString(), "byte by byte: " + c[0]);
        TestServer.Connection halves = server.resp();
        for (int at = 1; at < req.length; at++) {
          String first = halves.raw(java.util.Arrays.copyOfRange(req, 0, at));
          String second = halves.raw(java.util.Arrays.copyOfRange(req, at, req.length));
          assertEquals(c[1], first + second, "split at " + at + ": " + c[0]);
        }
      }
      String[][] errors = {
        {"*1\r\n$\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
        {"*1\r\n$1x\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
        {"*1\r\n$99999999999999999999\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
        {"*1\r\n$123456789012345678\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
      };
      for (String[] c : errors) {
        TestServer.Connection conn = server.resp();
        assertEquals(c[1], conn.raw(c[0]), c[0]);
        assertFalse(conn.channel.isOpen(), "closed after " + c[0]);
      }
    }
  }

  @Test
  void protocolErrorsAnswerAndCloseTheConnection() {
    try (TestServer server = new TestServer()) {
      String[][] cases = {
        {"*2\r\n$3\r\nGET\r\n:1\r\n", "-ERR Protocol error: expected '$', got ':'\r\n"},
        {"*x\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
        {"*99999999\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
        {"*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
        {"*1\r\n$999999999999\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
        {"SET \"unbalanced\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
      };
      for (String[] c : cases) {
        TestServer.Connection conn = server.resp();
        assertEquals(c[1], conn.raw(c[0]), c[0]);
        assertFalse(conn.channel.isOpen(), "closed after " + c[0]);
      }
      TestServer.Connection other = server.resp();
      assertEquals("+PONG\r\n", other.cmd("PING"), "other connections are unaffected");
    }
  }

  @Test
  void unknownCommandAndArity() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      assertEquals(
          "-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n",
          c.cmd("foo", "a", "b"));
      assertEquals(
          "-ERR wrong number of arguments for 'ping' command\r\n", c.cmd("PING", "a", "b"));
      assertTrue(c.channel.isOpen());
    }
  }

  @Test
  void authIsRequiredWhenAPasswordIsSet() {
    try (TestServer server = new TestServer(Map.of("requirepass", "s3cret"))) {
      TestServer.Connection c = server.resp();
      assertEquals("-NOAUTH Authentication required.\r\n", c.cmd("GET", "k"));
      assertEquals(
          "-WRONGPASS invalid username-password pair or user is disabled.\r\n",
          c.cmd("AUTH", "nope"));
      assertEquals("+OK\r\n", c.cmd("AUTH", "default", "s3cret"));
      assertEquals("$-1\r\n", c.cmd("GET", "k"));
      TestServer.Connection d = server.resp();
      assertTrue(d.cmd("HELLO", "3").startsWith("-NOAUTH HELLO must be called"));
      assertTrue(
          d.cmd("HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "me").startsWith("%7\r\n"));
      assertEquals("$2\r\nme\r\n", d.cmd("CLIENT", "GETNAME"));
      assertEquals("+RESET\r\n", d.cmd("RESET"));
      assertEquals("-NOAUTH Authentication required.\r\n", d.cmd("PING"));
    }
    try (TestServer server = new TestServer()) {
      assertTrue(server.resp().cmd("AUTH", "x").startsWith("-ERR AUTH <password> called without"));
    }
  }

  @Test
  void clientInfoConfigAndCommand() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      assertEquals("+OK\r\n", c.cmd("CLIENT", "SETNAME", "worker-1"));
      assertEquals(
          "-ERR Client names cannot contain spaces, newlines or special characters.\r\n",
          c.cmd("CLIENT", "SETNAME", "a b"));
      assertTrue(c.cmd("CLIENT", "ID").matches(":\\d+\r\n"));
      assertTrue(c.cmd("CLIENT", "LIST").contains("name=worker-1"));
      c.cmd("SET", "k", "v");
      c.cmd("GET", "k");
      c.cmd("GET", "missing");
      String info = c.cmd("INFO");
      for (String f :
          new String[] {
            "# Server\r\n",
            "redis_version:",
            "# Clients\r\n",
            "# Memory\r\n",
            "used_memory:",
            "maxmemory:268435456\r\n",
            "maxmemory_policy:allkeys-lfu\r\n",
            "# Stats\r\n",
            "keyspace_hits:1\r\n",
            "keyspace_misses:1\r\n",
            "larder_chunk_writes:0\r\n",
            "larder_chunk_bytes_written:0\r\n",
            "# Keyspace\r\n",
            "db0:keys=1,expires=0,avg_ttl=0\r\n"
          }) {
        assertTrue(info.contains(f), f);
      }
      assertFalse(c.cmd("INFO", "memory").contains("# Server"));
      assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "maxmemory", "8mb"));
      assertEquals(
          "*2\r\n$9\r\nmaxmemory\r\n$7\r\n8388608\r\n", c.cmd("CONFIG", "GET", "maxmemory"));
      assertEquals("$1\r\nv\r\n", c.cmd("GET", "k"), "resizing keeps the data");
      assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "maxmemory-policy", "noeviction"));
      assertTrue(
          c.cmd("CONFIG", "SET", "maxmemory-policy", "volatile-lru")
              .startsWith("-ERR CONFIG SET failed"));
      assertTrue(
          c.cmd("CONFIG", "GET", "maxmemory*").startsWith("*8\r\n"),
          "maxmemory, maxmemory-policy, maxmemory-samples, maxmemory-clients");
      assertEquals("*0\r\n", c.cmd("CONFIG", "GET", "nonesuch"));
      String count = c.cmd("COMMAND", "COUNT");
      assertTrue(Integer.parseInt(count.substring(1, count.length() - 2)) >= 60);
      assertTrue(c.cmd("COMMAND", "INFO", "get").startsWith("*1\r\n*10\r\n$3\r\nget\r\n:2\r\n"));
      String docs = c.cmd("COMMAND", "DOCS", "set");
      assertTrue(docs.contains("$7\r\nsummary\r\n") && docs.contains("$9\r\narguments\r\n"));
      assertTrue(c.cmd("TIME").startsWith("*2\r\n"));
      assertEquals("+OK\r\n", c.cmd("QUIT"));
      assertFalse(c.channel.isOpen());
    }
  }

  @Test
  void noevictionRefusesWritesAtTheBound() {
    try (TestServer server =
        new TestServer(Map.of("maxmemory", "1mb", "maxmemory-policy", "noeviction"))) {
      TestServer.Connection c = server.resp();
      String value = "x".repeat(1000);
      String last = "";
      int stored = 0;
      for (int i = 0; i < 5000 && !last.startsWith("-OOM"); i++) {
        last = c.cmd("SET", "k" + i, value);
        stored += last.equals("+OK\r\n") ? 1 : 0;
      }
      assertEquals("-OOM command not allowed when used memory > 'maxmemory'.\r\n", last);
      assertEquals(":" + stored + "\r\n", c.cmd("DBSIZE"), "nothing was evicted first");
      assertEquals(":1\r\n", c.cmd("DEL", "k0"), "deletes still work");
    }
  }

  /**
   * HELLO and INFO report one version, the Redis release whose command set is served (7.0): not 7.2
   * or 7.4, whose commands (CLIENT NO-TOUCH, WAITAOF, HEXPIRE...) are unknown here.
   */
  @Test
  void helloAndInfoReportTheRedisVersionWhoseCommandsAreServed() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      String hello = c.cmd("HELLO", "3");
      assertTrue(hello.contains("$7\r\nversion\r\n$6\r\n7.0.15\r\n"), hello);
      assertTrue(c.cmd("INFO", "server").contains("\r\nredis_version:7.0.15\r\n"));
      assertTrue(c.cmd("CLIENT", "NO-TOUCH", "on").startsWith("-ERR"));
      assertTrue(c.cmd("WAITAOF", "0", "0", "0").startsWith("-ERR unknown command"));
    }
  }
}
