package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * GETSET, SUBSTR, LCS, HSETNX, HSTRLEN, HINCRBYFLOAT and HRANDFIELD; each expected reply was read
 * from redis-server 7.0.15.
 */
class RespStringAndHashAdditionsTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void getsetReplacesAndDropsTheExpiry() {
    assertEquals("$-1\r\n", c.cmd("GETSET", "k", "a"));
    c.cmd("EXPIRE", "k", "100");
    assertEquals("$1\r\na\r\n", c.cmd("GETSET", "k", "b"));
    assertEquals(":-1\r\n", c.cmd("TTL", "k"));
    c.cmd("HSET", "h", "f", "v");
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("GETSET", "h", "x"));
    c.cmd("SET", "s", "mynewtext");
    assertEquals("$3\r\nmyn\r\n", c.cmd("SUBSTR", "s", "0", "2"));
  }

  @Test
  void lcsAnswersTheSubsequenceItsLengthOrItsRanges() {
    c.cmd("MSET", "key1", "ohmytext", "key2", "mynewtext");
    assertEquals("$6\r\nmytext\r\n", c.cmd("LCS", "key1", "key2"));
    assertEquals(":6\r\n", c.cmd("LCS", "key1", "key2", "LEN"));
    assertEquals(
        """
        *4\r
        $7\r
        matches\r
        *2\r
        *2\r
        *2\r
        :4\r
        :7\r
        *2\r
        :5\r
        :8\r
        *2\r
        *2\r
        :2\r
        :3\r
        *2\r
        :0\r
        :1\r
        $3\r
        len\r
        :6\r
        """,
        c.cmd("LCS", "key1", "key2", "IDX"));
    assertEquals(
        """
        *4\r
        $7\r
        matches\r
        *1\r
        *3\r
        *2\r
        :4\r
        :7\r
        *2\r
        :5\r
        :8\r
        :4\r
        $3\r
        len\r
        :6\r
        """,
        c.cmd("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"));
    assertEquals(
        "-ERR If you want both the length and indexes, please just use IDX.\r\n",
        c.cmd("LCS", "key1", "key2", "LEN", "IDX"));
    assertEquals("-ERR syntax error\r\n", c.cmd("LCS", "key1", "key2", "MINMATCHLEN"));
    assertEquals("$0\r\n\r\n", c.cmd("LCS", "key1", "nokey"));
    c.cmd("HSET", "h", "f", "v");
    assertEquals(
        "-ERR The specified keys must contain string values\r\n", c.cmd("LCS", "key1", "h"));
  }

  @Test
  void hsetnxHstrlenAndHincrbyfloat() {
    c.cmd("HSET", "h", "f", "1.5", "g", "abc");
    assertEquals("$3\r\n1.6\r\n", c.cmd("HINCRBYFLOAT", "h", "f", "0.1"));
    assertEquals("-ERR hash value is not a float\r\n", c.cmd("HINCRBYFLOAT", "h", "g", "1"));
    assertEquals("-ERR value is NaN or Infinity\r\n", c.cmd("HINCRBYFLOAT", "h", "f", "inf"));
    assertEquals("-ERR value is not a valid float\r\n", c.cmd("HINCRBYFLOAT", "h", "f", "nan"));
    assertEquals("$4\r\n10.5\r\n", c.cmd("HINCRBYFLOAT", "h", "new", "10.50"));
    assertEquals("$4\r\n10.5\r\n", c.cmd("HGET", "h", "new"));
    assertEquals(":0\r\n", c.cmd("HSETNX", "h", "f", "x"));
    assertEquals(":1\r\n", c.cmd("HSETNX", "h", "z", "x"));
    assertEquals(":1\r\n", c.cmd("HSETNX", "fresh", "z", "x"));
    assertEquals(":3\r\n", c.cmd("HSTRLEN", "h", "g"));
    assertEquals(":0\r\n", c.cmd("HSTRLEN", "h", "nope"));
    assertEquals(":0\r\n", c.cmd("HSTRLEN", "nokey", "nope"));
  }

  @Test
  void hrandfieldDrawsDistinctOrRepeatedFields() {
    assertEquals("$-1\r\n", c.cmd("HRANDFIELD", "nokey"));
    assertEquals("*0\r\n", c.cmd("HRANDFIELD", "nokey", "3"));
    c.cmd("HSET", "h", "a", "1", "b", "2", "c", "3");
    assertEquals("*0\r\n", c.cmd("HRANDFIELD", "h", "0"));
    assertEquals("-ERR syntax error\r\n", c.cmd("HRANDFIELD", "h", "1", "foo"));
    assertEquals(
        "-ERR value is out of range, value must between -9223372036854775807 and"
            + " 9223372036854775807\r\n",
        c.cmd("HRANDFIELD", "h", "-9223372036854775808"));
    assertEquals(
        "-ERR value is out of range\r\n",
        c.cmd("HRANDFIELD", "h", "-9223372036854770000", "WITHVALUES"));
    assertEquals(
        "*6\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n",
        c.cmd("HRANDFIELD", "h", "5", "WITHVALUES"),
        "more than the hash holds: all of it");
    Set<String> distinct = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      String two = c.cmd("HRANDFIELD", "h", "2");
      assertTrue(two.startsWith("*2\r\n"), two);
      String[] parts = two.split("\r\n", -1);
      assertTrue(!parts[2].equals(parts[4]), "distinct: " + two);
      distinct.add(parts[2]);
    }
    assertEquals(Set.of("a", "b", "c"), distinct);
    String repeated = c.cmd("HRANDFIELD", "h", "-7");
    assertTrue(repeated.startsWith("*7\r\n"), repeated);
    c.cmd("HELLO", "3");
    String pairs = c.cmd("HRANDFIELD", "h", "-2", "WITHVALUES");
    assertTrue(pairs.startsWith("*2\r\n*2\r\n$1\r\n"), "RESP3: pairs as arrays: " + pairs);
  }
}
