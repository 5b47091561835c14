package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import dev.larder.server.internal.keyspace.SetPayload;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The set commands through the real decoder and handler, replies compared byte for byte. */
class RespSetCommandsTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  private static String arr(String... bulks) {
    StringBuilder sb = new StringBuilder("*").append(bulks.length).append("\r\n");
    for (String b : bulks) {
      sb.append('$').append(b.length()).append("\r\n").append(b).append("\r\n");
    }
    return sb.toString();
  }

  private int encoding(String key) {
    return SetPayload.encoding(
        server.keyspace.peek(0, key.getBytes(StandardCharsets.UTF_8)).payload());
  }

  @Test
  void addRemoveCardMembership() {
    assertEquals(":3\r\n", c.cmd("SADD", "s", "b", "a", "c", "a"));
    assertEquals(":0\r\n", c.cmd("SADD", "s", "a"));
    assertEquals(":3\r\n", c.cmd("SCARD", "s"));
    assertEquals(":1\r\n", c.cmd("SISMEMBER", "s", "a"));
    assertEquals(":0\r\n", c.cmd("SISMEMBER", "s", "z"));
    assertEquals("*3\r\n:1\r\n:0\r\n:1\r\n", c.cmd("SMISMEMBER", "s", "a", "z", "c"));
    assertEquals(arr("a", "b", "c"), c.cmd("SMEMBERS", "s"));
    assertEquals("+set\r\n", c.cmd("TYPE", "s"));
    assertEquals(":2\r\n", c.cmd("SREM", "s", "a", "b", "zz"));
    assertEquals(":1\r\n", c.cmd("SREM", "s", "c"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "s"), "an emptied set is deleted");
    assertEquals(":0\r\n", c.cmd("SCARD", "s"));
    assertEquals("*0\r\n", c.cmd("SMEMBERS", "s"));
    assertEquals("*2\r\n:0\r\n:0\r\n", c.cmd("SMISMEMBER", "nokey", "a", "b"));
  }

  @Test
  void wrongTypeBothWays() {
    c.cmd("SET", "str", "v");
    c.cmd("SADD", "s", "m");
    String wrong = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
    assertEquals(wrong, c.cmd("SADD", "str", "m"));
    assertEquals(wrong, c.cmd("SMEMBERS", "str"));
    assertEquals(wrong, c.cmd("SINTER", "s", "str"));
    assertEquals(wrong, c.cmd("GET", "s"));
    assertEquals(wrong, c.cmd("HGET", "s", "f"));
    assertEquals(wrong, c.cmd("ZADD", "s", "1", "m"));
    assertEquals(":0\r\n", c.cmd("SMOVE", "nokey", "str", "m"), "an absent source answers 0 first");
    assertEquals(wrong, c.cmd("SMOVE", "s", "str", "m"));
  }

  @Test
  void encodingsGrowFromIntsetToPackedToTable() {
    for (int i = 0; i < 512; i++) {
      c.cmd("SADD", "ints", Integer.toString(i * 1000 - 70_000));
    }
    assertEquals(0, encoding("ints"));
    assertEquals(":1\r\n", c.cmd("SISMEMBER", "ints", "-70000"));
    assertEquals(":0\r\n", c.cmd("SISMEMBER", "ints", "-070000"), "not canonical: not the integer");
    c.cmd("SADD", "ints", "512000");
    assertEquals(2, encoding("ints"), "past 512 integers");
    assertEquals(":513\r\n", c.cmd("SCARD", "ints"));
    c.cmd("SADD", "small", "1", "x");
    assertEquals(1, encoding("small"));
    c.cmd("SADD", "small", "y".repeat(65));
    assertEquals(2, encoding("small"), "a member past 64 bytes");
    assertEquals(":1\r\n", c.cmd("SISMEMBER", "small", "y".repeat(65)));
    for (int i = 0; i < 200; i++) {
      c.cmd("SADD", "big", "m" + i);
    }
    assertEquals(2, encoding("big"));
    for (int i = 0; i < 200; i += 2) {
      assertEquals(":1\r\n", c.cmd("SREM", "big", "m" + i));
    }
    assertEquals(":100\r\n", c.cmd("SCARD", "big"));
    for (int i = 0; i < 200; i++) {
      assertEquals(i % 2 == 0 ? ":0\r\n" : ":1\r\n", c.cmd("SISMEMBER", "big", "m" + i));
    }
  }

  @Test
  void randomMembersAndPops() {
    assertEquals("$-1\r\n", c.cmd("SRANDMEMBER", "nokey"));
    assertEquals("*0\r\n", c.cmd("SRANDMEMBER", "nokey", "5"));
    c.cmd("SADD", "s", "a", "b", "c");
    assertTrue(c.cmd("SRANDMEMBER", "s").matches("\\$1\r\n[abc]\r\n"));
    assertEquals("*0\r\n", c.cmd("SRANDMEMBER", "s", "0"));
    String three = c.cmd("SRANDMEMBER", "s", "10");
    assertTrue(three.startsWith("*3\r\n") && three.contains("a") && three.contains("b"), three);
    String many = c.cmd("SRANDMEMBER", "s", "-7");
    assertTrue(many.startsWith("*7\r\n"), many);
    assertEquals("-ERR value is out of range, must be positive\r\n", c.cmd("SPOP", "s", "-1"));
    assertTrue(c.cmd("SPOP", "s").matches("\\$1\r\n[abc]\r\n"));
    String rest = c.cmd("SPOP", "s", "5");
    assertTrue(rest.startsWith("*2\r\n"), rest);
    assertEquals(":0\r\n", c.cmd("EXISTS", "s"));
    assertEquals("$-1\r\n", c.cmd("SPOP", "s"));
    assertEquals("*0\r\n", c.cmd("SPOP", "s", "3"));
  }

  @Test
  void moveAndAlgebra() {
    c.cmd("SADD", "a", "1", "2", "3", "x");
    c.cmd("SADD", "b", "2", "3", "4");
    c.cmd("SADD", "c", "3", "9");
    assertEquals(arr("3"), c.cmd("SINTER", "a", "b", "c"));
    assertEquals("*0\r\n", c.cmd("SINTER", "a", "nokey"));
    assertEquals(":2\r\n", c.cmd("SINTERCARD", "2", "a", "b"));
    assertEquals(":1\r\n", c.cmd("SINTERCARD", "2", "a", "b", "LIMIT", "1"));
    assertEquals(":2\r\n", c.cmd("SINTERCARD", "2", "a", "b", "LIMIT", "0"));
    assertEquals("-ERR numkeys should be greater than 0\r\n", c.cmd("SINTERCARD", "0", "a"));
    assertEquals(
        "-ERR Number of keys can't be greater than number of args\r\n",
        c.cmd("SINTERCARD", "3", "a", "b"));
    assertEquals("-ERR LIMIT can't be negative\r\n", c.cmd("SINTERCARD", "1", "a", "LIMIT", "-1"));
    assertEquals(arr("1", "2", "3", "4", "9", "x"), c.cmd("SUNION", "a", "b", "c", "nokey"));
    assertEquals(arr("1", "x"), c.cmd("SDIFF", "a", "b", "c"));
    assertEquals(":6\r\n", c.cmd("SUNIONSTORE", "u", "a", "b", "c"));
    assertEquals(":6\r\n", c.cmd("SCARD", "u"));
    c.cmd("SET", "str", "v");
    assertEquals(":2\r\n", c.cmd("SDIFFSTORE", "str", "a", "b", "c"), "overwrites any type");
    assertEquals("+set\r\n", c.cmd("TYPE", "str"));
    assertEquals(":0\r\n", c.cmd("SINTERSTORE", "str", "a", "nokey"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "str"), "an empty result deletes the destination");
    assertEquals(":1\r\n", c.cmd("SMOVE", "a", "b", "x"));
    assertEquals(":0\r\n", c.cmd("SMOVE", "a", "b", "x"));
    assertEquals(":1\r\n", c.cmd("SISMEMBER", "b", "x"));
    assertEquals(":1\r\n", c.cmd("SMOVE", "b", "b", "x"), "same key: membership");
    assertEquals(":1\r\n", c.cmd("SMOVE", "c", "new", "9"));
    assertEquals(":1\r\n", c.cmd("SMOVE", "c", "new", "3"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "c"));
    assertEquals(":2\r\n", c.cmd("SCARD", "new"));
  }

  @Test
  void scanVisitsEveryMember() {
    for (int i = 0; i < 300; i++) {
      c.cmd("SADD", "s", "member:" + i);
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    String cursor = "0";
    do {
      String reply = c.cmd("SSCAN", "s", cursor, "MATCH", "member:1*", "COUNT", "50");
      String[] lines = reply.split("\r\n", -1);
      cursor = lines[2];
      for (int i = 5; i < lines.length; i += 2) {
        seen.add(lines[i]);
      }
    } while (!cursor.equals("0"));
    assertEquals(111, seen.size(), "member:1, 10-19, 100-199");
    assertEquals("*2\r\n$1\r\n0\r\n*0\r\n", c.cmd("SSCAN", "nokey", "0"));
  }

  @Test
  void resp3RepliesSets() {
    c.cmd("HELLO", "3");
    c.cmd("SADD", "s", "a");
    assertEquals("~1\r\n$1\r\na\r\n", c.cmd("SMEMBERS", "s"));
  }

  @Test
  void commandTableAndCategories() {
    String info = c.cmd("COMMAND", "INFO", "sadd");
    assertTrue(info.contains("@set") && info.contains("@write") && info.contains("@fast"), info);
    String docs = c.cmd("COMMAND", "DOCS", "sintercard");
    assertTrue(docs.contains("numkeys"), docs);
  }
}
