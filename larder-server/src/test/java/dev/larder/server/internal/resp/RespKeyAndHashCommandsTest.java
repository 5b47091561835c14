package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Key, database and hash commands through the real decoder and handler. */
class RespKeyAndHashCommandsTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void deleteExistsTypeRename() {
    c.cmd("MSET", "a", "1", "b", "2");
    assertEquals(":3\r\n", c.cmd("EXISTS", "a", "a", "b"));
    assertEquals(":1\r\n", c.cmd("DEL", "a", "zz"));
    assertEquals(":1\r\n", c.cmd("UNLINK", "b"));
    c.cmd("SET", "s", "v", "EX", "100");
    c.cmd("HSET", "h", "f", "v");
    assertEquals("+string\r\n", c.cmd("TYPE", "s"));
    assertEquals("+hash\r\n", c.cmd("TYPE", "h"));
    assertEquals("+none\r\n", c.cmd("TYPE", "zz"));
    assertEquals("+OK\r\n", c.cmd("RENAME", "s", "t"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "s"));
    assertEquals(":100\r\n", c.cmd("TTL", "t"));
    assertEquals("-ERR no such key\r\n", c.cmd("RENAME", "s", "u"));
  }

  @Test
  void expireConditions() {
    c.cmd("SET", "k", "v");
    assertEquals(":0\r\n", c.cmd("EXPIRE", "k", "100", "XX"));
    assertEquals(":0\r\n", c.cmd("EXPIRE", "k", "100", "GT"));
    assertEquals(":1\r\n", c.cmd("EXPIRE", "k", "100", "NX"));
    assertEquals(":0\r\n", c.cmd("EXPIRE", "k", "50", "GT"));
    assertEquals(":1\r\n", c.cmd("EXPIRE", "k", "50", "LT"));
    assertEquals(":50\r\n", c.cmd("TTL", "k"));
    assertEquals(":1\r\n", c.cmd("PEXPIRE", "k", "200000", "GT"));
    assertEquals(":200\r\n", c.cmd("TTL", "k"));
    assertEquals(":1\r\n", c.cmd("EXPIREAT", "k", Long.toString(TestServer.START / 1000 + 7)));
    assertEquals(":7\r\n", c.cmd("TTL", "k"));
    assertEquals(":1\r\n", c.cmd("PEXPIREAT", "k", Long.toString(TestServer.START + 3000)));
    assertEquals(":3000\r\n", c.cmd("PTTL", "k"));
    assertEquals(":1\r\n", c.cmd("PERSIST", "k"));
    assertEquals(":0\r\n", c.cmd("PERSIST", "k"));
    assertEquals(":-1\r\n", c.cmd("TTL", "k"));
    assertEquals(":-2\r\n", c.cmd("TTL", "none"));
    assertEquals(":0\r\n", c.cmd("EXPIRE", "none", "10"));
    assertEquals(
        "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n",
        c.cmd("EXPIRE", "k", "1", "NX", "GT"));
    assertEquals(
        "-ERR GT and LT options at the same time are not compatible\r\n",
        c.cmd("EXPIRE", "k", "1", "GT", "LT"));
    assertEquals(":1\r\n", c.cmd("EXPIRE", "k", "-1"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "k"));
  }

  @Test
  void databasesAreSeparate() {
    c.cmd("SET", "k", "zero");
    assertEquals("+OK\r\n", c.cmd("SELECT", "3"));
    assertEquals("$-1\r\n", c.cmd("GET", "k"));
    c.cmd("SET", "k", "three");
    c.cmd("SET", "k2", "three");
    assertEquals(":2\r\n", c.cmd("DBSIZE"));
    assertEquals("-ERR DB index is out of range\r\n", c.cmd("SELECT", "16"));
    assertEquals("+OK\r\n", c.cmd("FLUSHDB"));
    assertEquals(":0\r\n", c.cmd("DBSIZE"));
    c.cmd("SELECT", "0");
    assertEquals("$4\r\nzero\r\n", c.cmd("GET", "k"));
    assertEquals("+OK\r\n", c.cmd("FLUSHALL", "ASYNC"));
    assertEquals(":0\r\n", c.cmd("DBSIZE"));
  }

  @Test
  void scanVisitsEveryKeyOnceAndKeysMatches() {
    for (int i = 0; i < 500; i++) {
      c.cmd("SET", "key:" + i, "v");
    }
    c.cmd("HSET", "hash:1", "f", "v");
    Set<String> seen = new HashSet<>();
    String cursor = "0";
    int calls = 0;
    Pattern bulk = Pattern.compile("\\$\\d+\r\n([^\r]*)\r\n");
    do {
      String reply = c.cmd("SCAN", cursor, "MATCH", "key:*", "COUNT", "37");
      Matcher m = bulk.matcher(reply);
      assertTrue(m.find());
      cursor = m.group(1);
      while (m.find()) {
        assertTrue(seen.add(m.group(1)), "returned twice: " + m.group(1));
      }
      calls++;
    } while (!cursor.equals("0") && calls < 1000);
    assertEquals(500, seen.size());
    String hashes = c.cmd("SCAN", "0", "TYPE", "hash", "COUNT", "1000");
    assertEquals("*2\r\n$1\r\n0\r\n*1\r\n$6\r\nhash:1\r\n", hashes);
    assertEquals("*1\r\n$5\r\nkey:7\r\n", c.cmd("KEYS", "key:7"));
    assertTrue(c.cmd("KEYS", "key:4?").startsWith("*10\r\n"));
    assertTrue(c.cmd("KEYS", "key:[12]").startsWith("*2\r\n"));
    assertEquals("-ERR invalid cursor\r\n", c.cmd("SCAN", "x"));
  }

  @Test
  void hashes() {
    assertEquals(":2\r\n", c.cmd("HSET", "h", "a", "1", "b", "2"));
    assertEquals(":1\r\n", c.cmd("HSET", "h", "a", "3", "c", "4"));
    assertEquals("$1\r\n3\r\n", c.cmd("HGET", "h", "a"));
    assertEquals("$-1\r\n", c.cmd("HGET", "h", "zz"));
    assertEquals("*3\r\n$1\r\n3\r\n$-1\r\n$1\r\n4\r\n", c.cmd("HMGET", "h", "a", "x", "c"));
    assertEquals(
        "*6\r\n$1\r\na\r\n$1\r\n3\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n4\r\n",
        c.cmd("HGETALL", "h"));
    assertEquals(":3\r\n", c.cmd("HLEN", "h"));
    assertEquals(":1\r\n", c.cmd("HEXISTS", "h", "b"));
    assertEquals("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", c.cmd("HKEYS", "h"));
    assertEquals("*3\r\n$1\r\n3\r\n$1\r\n2\r\n$1\r\n4\r\n", c.cmd("HVALS", "h"));
    assertEquals(":13\r\n", c.cmd("HINCRBY", "h", "a", "10"));
    assertEquals(":-1\r\n", c.cmd("HINCRBY", "h", "new", "-1"));
    c.cmd("HSET", "h", "text", "abc");
    assertEquals("-ERR hash value is not an integer\r\n", c.cmd("HINCRBY", "h", "text", "1"));
    assertEquals(":2\r\n", c.cmd("HDEL", "h", "a", "b", "zz"));
    String scan = c.cmd("HSCAN", "h", "0", "COUNT", "100");
    assertTrue(scan.startsWith("*2\r\n$1\r\n0\r\n*6\r\n"), scan);
    c.cmd("HDEL", "h", "c", "new", "text");
    assertEquals(":0\r\n", c.cmd("EXISTS", "h"), "an emptied hash is deleted");
    assertEquals(
        "-ERR wrong number of arguments for 'hset' command\r\n", c.cmd("HSET", "h", "a", "1", "b"));
    c.cmd("SET", "s", "v");
    assertEquals("-" + RespError.WRONGTYPE + "\r\n", c.cmd("HSET", "s", "a", "1"));
    assertEquals("*0\r\n", c.cmd("HGETALL", "none"));
  }

  @Test
  void resp3ShapesHashesAsMapsAndNullsAsNull() {
    c.cmd("HSET", "h", "a", "1");
    String hello = c.cmd("HELLO", "3");
    assertTrue(hello.startsWith("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n"), hello);
    assertTrue(hello.contains("$5\r\nproto\r\n:3\r\n"));
    assertEquals("%1\r\n$1\r\na\r\n$1\r\n1\r\n", c.cmd("HGETALL", "h"));
    assertEquals("_\r\n", c.cmd("GET", "none"));
    assertEquals(
        "%1\r\n$9\r\nmaxmemory\r\n$9\r\n268435456\r\n", c.cmd("CONFIG", "GET", "maxmemory"));
    assertTrue(c.cmd("HELLO", "2").startsWith("*14\r\n"));
    assertEquals("$-1\r\n", c.cmd("GET", "none"));
    assertEquals("-NOPROTO unsupported protocol version\r\n", c.cmd("HELLO", "4"));
  }
}
