package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The sorted-set commands through the real decoder and handler, replies compared byte for byte. */
class RespZSetCommandsTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  static String arr(String... bulks) {
    StringBuilder sb = new StringBuilder("*").append(bulks.length).append("\r\n");
    for (String b : bulks) {
      sb.append('$').append(b.length()).append("\r\n").append(b).append("\r\n");
    }
    return sb.toString();
  }

  private static String bulk(String s) {
    return "$" + s.length() + "\r\n" + s + "\r\n";
  }

  @Test
  void addOptionsAndScores() {
    assertEquals(":3\r\n", c.cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"));
    assertEquals("+zset\r\n", c.cmd("TYPE", "z"));
    assertEquals(":0\r\n", c.cmd("ZADD", "z", "5", "a"));
    assertEquals(":1\r\n", c.cmd("ZADD", "z", "CH", "6", "a", "2", "b"));
    assertEquals(":0\r\n", c.cmd("ZADD", "z", "NX", "1", "a", "1", "b"));
    assertEquals(":0\r\n", c.cmd("ZADD", "z", "XX", "1", "new"));
    assertEquals(":1\r\n", c.cmd("ZADD", "z", "GT", "CH", "1", "a", "10", "b"));
    assertEquals(bulk("10"), c.cmd("ZSCORE", "z", "b"));
    assertEquals(":2\r\n", c.cmd("ZADD", "z", "LT", "CH", "0.5", "c", "1", "new"), "LT still adds");
    assertEquals(bulk("0.5"), c.cmd("ZSCORE", "z", "c"));
    assertEquals(bulk("1.5"), c.cmd("ZADD", "z", "INCR", "1", "c"));
    assertEquals("$-1\r\n", c.cmd("ZADD", "z", "NX", "INCR", "1", "c"));
    assertEquals("$-1\r\n", c.cmd("ZADD", "z", "GT", "INCR", "-1", "c"));
    assertEquals(bulk("2.5"), c.cmd("ZINCRBY", "z", "1", "c"));
    assertEquals(bulk("1"), c.cmd("ZINCRBY", "fresh", "1", "m"));
    assertEquals("-ERR wrong number of arguments for 'zadd' command\r\n", c.cmd("ZADD", "z", "1"));
    assertEquals("-ERR syntax error\r\n", c.cmd("ZADD", "z", "NX", "1"));
    assertEquals("-ERR syntax error\r\n", c.cmd("ZADD", "z", "1", "a", "2"));
    assertEquals(
        "-ERR XX and NX options at the same time are not compatible\r\n",
        c.cmd("ZADD", "z", "NX", "XX", "1", "a"));
    assertEquals(
        "-ERR GT, LT, and/or NX options at the same time are not compatible\r\n",
        c.cmd("ZADD", "z", "GT", "LT", "1", "a"));
    assertEquals(
        "-ERR INCR option supports a single increment-element pair\r\n",
        c.cmd("ZADD", "z", "INCR", "1", "a", "2", "b"));
    assertEquals("-ERR value is not a valid float\r\n", c.cmd("ZADD", "z", "nan", "a"));
    assertEquals("-ERR value is not a valid float\r\n", c.cmd("ZADD", "z", "1x", "a"));
    assertEquals("-ERR value is not a valid float\r\n", c.cmd("ZINCRBY", "z", " 1", "a"));
    c.cmd("ZADD", "inf", "+inf", "m");
    assertEquals(bulk("inf"), c.cmd("ZSCORE", "inf", "m"));
    assertEquals(
        "-ERR resulting score is not a number (NaN)\r\n", c.cmd("ZINCRBY", "inf", "-inf", "m"));
    assertEquals(bulk("inf"), c.cmd("ZSCORE", "inf", "m"), "unchanged after the NaN");
    c.cmd("ZADD", "f", "1.1", "a", "-0.0001", "b", "1e20", "c", "123456789012345678", "d");
    assertEquals(bulk("1.1000000000000001"), c.cmd("ZSCORE", "f", "a"));
    assertEquals(bulk("-0.0001"), c.cmd("ZSCORE", "f", "b"));
    assertEquals(bulk("1e+20"), c.cmd("ZSCORE", "f", "c"));
    assertEquals(bulk("1.2345678901234568e+17"), c.cmd("ZSCORE", "f", "d"));
    assertEquals(
        "*3\r\n$18\r\n1.1000000000000001\r\n$-1\r\n$5\r\n1e+20\r\n",
        c.cmd("ZMSCORE", "f", "a", "zz", "c"));
    assertEquals("$-1\r\n", c.cmd("ZSCORE", "nokey", "a"));
  }

  @Test
  void removeCardRank() {
    c.cmd("ZADD", "z", "1", "a", "2", "b", "3", "c");
    assertEquals(":3\r\n", c.cmd("ZCARD", "z"));
    assertEquals(":0\r\n", c.cmd("ZRANK", "z", "a"));
    assertEquals(":2\r\n", c.cmd("ZREVRANK", "z", "a"));
    assertEquals("$-1\r\n", c.cmd("ZRANK", "z", "zz"));
    assertEquals(":2\r\n", c.cmd("ZREM", "z", "a", "b", "zz"));
    assertEquals(":1\r\n", c.cmd("ZREM", "z", "c"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "z"));
    assertEquals(":0\r\n", c.cmd("ZCARD", "z"));
    c.cmd("SET", "s", "v");
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("ZCARD", "s"));
  }

  @Test
  void rangesByRankScoreAndLex() {
    c.cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e");
    assertEquals(arr("a", "b", "c"), c.cmd("ZRANGE", "z", "0", "2"));
    assertEquals(arr("d", "e"), c.cmd("ZRANGE", "z", "-2", "-1"));
    assertEquals(arr("e", "d"), c.cmd("ZRANGE", "z", "0", "1", "REV"));
    assertEquals(arr("e", "d"), c.cmd("ZREVRANGE", "z", "0", "1"));
    assertEquals("*0\r\n", c.cmd("ZRANGE", "z", "3", "1"));
    assertEquals(arr("a", "1", "b", "2"), c.cmd("ZRANGE", "z", "0", "1", "WITHSCORES"));
    assertEquals(arr("b", "c"), c.cmd("ZRANGE", "z", "(1", "3", "BYSCORE"));
    assertEquals(arr("c", "b"), c.cmd("ZRANGE", "z", "3", "(1", "BYSCORE", "REV"));
    assertEquals(arr("b", "c", "d"), c.cmd("ZRANGEBYSCORE", "z", "(1", "+inf", "LIMIT", "0", "3"));
    assertEquals(arr("d", "c"), c.cmd("ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", "1", "2"));
    assertEquals(arr("a", "b", "c", "d", "e"), c.cmd("ZRANGEBYSCORE", "z", "-inf", "+inf"));
    assertEquals(arr("c", "3"), c.cmd("ZRANGEBYSCORE", "z", "3", "(4", "WITHSCORES"));
    assertEquals(":3\r\n", c.cmd("ZCOUNT", "z", "(1", "4"));
    assertEquals(":0\r\n", c.cmd("ZCOUNT", "z", "5", "1"));
    assertEquals("-ERR min or max is not a float\r\n", c.cmd("ZCOUNT", "z", "x", "1"));
    c.cmd("ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d");
    assertEquals(arr("b", "c"), c.cmd("ZRANGEBYLEX", "l", "(a", "[c"));
    assertEquals(arr("a", "b"), c.cmd("ZRANGEBYLEX", "l", "-", "+", "LIMIT", "0", "2"));
    assertEquals(arr("d", "c"), c.cmd("ZREVRANGEBYLEX", "l", "+", "[c"));
    assertEquals(arr("c", "b"), c.cmd("ZRANGE", "l", "[c", "(a", "BYLEX", "REV"));
    assertEquals(":4\r\n", c.cmd("ZLEXCOUNT", "l", "-", "+"));
    assertEquals(":0\r\n", c.cmd("ZLEXCOUNT", "l", "+", "-"));
    assertEquals(
        "-ERR min or max not valid string range item\r\n", c.cmd("ZLEXCOUNT", "l", "a", "+"));
    assertEquals(
        "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\r\n",
        c.cmd("ZRANGE", "z", "0", "1", "LIMIT", "0", "1"));
    assertEquals(
        "-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n",
        c.cmd("ZRANGE", "l", "-", "+", "BYLEX", "WITHSCORES"));
    assertEquals("-ERR syntax error\r\n", c.cmd("ZREVRANGE", "z", "0", "1", "REV"));
    assertEquals(
        "-ERR value is not an integer or out of range\r\n", c.cmd("ZRANGE", "z", "a", "1"));
    assertEquals("*0\r\n", c.cmd("ZRANGE", "nokey", "0", "-1"));
  }

  @Test
  void rangeStoreAndRemoveRanges() {
    c.cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e");
    assertEquals(":2\r\n", c.cmd("ZRANGESTORE", "dst", "z", "2", "3", "BYSCORE"));
    assertEquals(arr("b", "2", "c", "3"), c.cmd("ZRANGE", "dst", "0", "-1", "WITHSCORES"));
    assertEquals("-ERR syntax error\r\n", c.cmd("ZRANGESTORE", "dst", "z", "0", "1", "WITHSCORES"));
    assertEquals(":0\r\n", c.cmd("ZRANGESTORE", "dst", "z", "9", "10", "BYSCORE"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "dst"));
    assertEquals(":2\r\n", c.cmd("ZREMRANGEBYRANK", "z", "0", "1"));
    assertEquals(":1\r\n", c.cmd("ZREMRANGEBYSCORE", "z", "(3", "4"));
    assertEquals(arr("c", "e"), c.cmd("ZRANGE", "z", "0", "-1"));
    c.cmd("ZADD", "l", "0", "a", "0", "b", "0", "c");
    assertEquals(":2\r\n", c.cmd("ZREMRANGEBYLEX", "l", "[a", "(c"));
    assertEquals(":1\r\n", c.cmd("ZREMRANGEBYLEX", "l", "-", "+"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "l"));
  }

  @Test
  void popsAndRandomMembers() {
    c.cmd("ZADD", "z", "1", "a", "2", "b", "3", "c");
    assertEquals(arr("a", "1"), c.cmd("ZPOPMIN", "z"));
    assertEquals(arr("c", "3", "b", "2"), c.cmd("ZPOPMAX", "z", "5"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "z"));
    assertEquals("*0\r\n", c.cmd("ZPOPMIN", "z"));
    assertEquals("-ERR value is out of range, must be positive\r\n", c.cmd("ZPOPMIN", "z", "-1"));
    c.cmd("ZADD", "z1", "1", "a", "2", "b");
    c.cmd("ZADD", "z2", "5", "x");
    assertEquals("*-1\r\n", c.cmd("ZMPOP", "1", "nokey", "MIN"));
    assertEquals(
        "*2\r\n$2\r\nz1\r\n*1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n",
        c.cmd("ZMPOP", "2", "nokey", "z1", "MAX"));
    assertEquals(
        "*2\r\n$2\r\nz1\r\n*1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n",
        c.cmd("ZMPOP", "2", "z1", "z2", "MIN", "COUNT", "10"));
    assertEquals(
        "-ERR count should be greater than 0\r\n", c.cmd("ZMPOP", "1", "z2", "MIN", "COUNT", "0"));
    assertEquals("-ERR syntax error\r\n", c.cmd("ZMPOP", "1", "z2", "MIDDLE"));
    assertEquals("$-1\r\n", c.cmd("ZRANDMEMBER", "nokey"));
    assertEquals(bulk("x"), c.cmd("ZRANDMEMBER", "z2"));
    assertEquals(arr("x", "5"), c.cmd("ZRANDMEMBER", "z2", "3", "WITHSCORES"));
    assertEquals(arr("x", "x", "x"), c.cmd("ZRANDMEMBER", "z2", "-3"));
  }

  @Test
  void unionInterDiff() {
    c.cmd("ZADD", "a", "1", "x", "2", "y", "3", "z");
    c.cmd("ZADD", "b", "10", "y", "20", "z", "30", "w");
    c.cmd("SADD", "s", "x", "w");
    assertEquals(
        arr("x", "1", "y", "12", "z", "23", "w", "30"),
        c.cmd("ZUNION", "2", "a", "b", "WITHSCORES"));
    assertEquals(
        arr("y", "10", "z", "20"),
        c.cmd("ZINTER", "2", "a", "b", "AGGREGATE", "MAX", "WITHSCORES"));
    assertEquals(
        arr("y", "14", "z", "26"),
        c.cmd("ZINTER", "2", "a", "b", "WEIGHTS", "2", "1", "WITHSCORES"));
    assertEquals(arr("x"), c.cmd("ZDIFF", "2", "a", "b"));
    assertEquals(
        arr("x", "1", "y", "10", "z", "20", "w", "31"),
        c.cmd("ZUNION", "2", "s", "b", "WITHSCORES"),
        "a plain set's members score 1");
    assertEquals(":2\r\n", c.cmd("ZINTERSTORE", "dst", "2", "a", "b"));
    assertEquals(arr("y", "12", "z", "23"), c.cmd("ZRANGE", "dst", "0", "-1", "WITHSCORES"));
    assertEquals(":4\r\n", c.cmd("ZUNIONSTORE", "dst", "2", "a", "b", "AGGREGATE", "MIN"));
    assertEquals(":1\r\n", c.cmd("ZDIFFSTORE", "dst", "2", "a", "b"));
    assertEquals(":2\r\n", c.cmd("ZINTERCARD", "2", "a", "b"));
    assertEquals(":1\r\n", c.cmd("ZINTERCARD", "2", "a", "b", "LIMIT", "1"));
    assertEquals(
        "-ERR at least 1 input key is needed for 'zunionstore' command\r\n",
        c.cmd("ZUNIONSTORE", "dst", "0", "a"));
    assertEquals("-ERR syntax error\r\n", c.cmd("ZUNION", "3", "a", "b"));
    assertEquals("-ERR syntax error\r\n", c.cmd("ZDIFF", "2", "a", "b", "WEIGHTS", "1", "2"));
    assertEquals(
        "-ERR weight value is not a float\r\n",
        c.cmd("ZUNION", "2", "a", "b", "WEIGHTS", "1", "x"));
    c.cmd("ZADD", "i", "inf", "m");
    c.cmd("ZADD", "j", "-inf", "m");
    assertEquals(arr("m", "0"), c.cmd("ZUNION", "2", "i", "j", "WITHSCORES"), "inf + -inf is 0");
    assertEquals(
        arr("m", "0"), c.cmd("ZUNION", "1", "i", "WEIGHTS", "0", "WITHSCORES"), "inf x 0 is 0");
    c.cmd("SET", "str", "v");
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("ZUNION", "2", "a", "str"));
  }

  @Test
  void scanAndResp3() {
    for (int i = 0; i < 150; i++) {
      c.cmd("ZADD", "z", Integer.toString(i), "m" + i);
    }
    java.util.Map<String, String> seen = new java.util.HashMap<>();
    String cursor = "0";
    do {
      String[] lines = c.cmd("ZSCAN", "z", cursor, "COUNT", "40").split("\r\n", -1);
      cursor = lines[2];
      for (int i = 5; i < lines.length; i += 4) {
        seen.put(lines[i], lines[i + 2]);
      }
    } while (!cursor.equals("0"));
    assertEquals(150, seen.size());
    assertEquals("42", seen.get("m42"));
    c.cmd("HELLO", "3");
    assertEquals("*1\r\n*2\r\n$2\r\nm0\r\n,0\r\n", c.cmd("ZRANGE", "z", "0", "0", "WITHSCORES"));
    assertEquals(",0\r\n", c.cmd("ZSCORE", "z", "m0"));
    assertEquals("*2\r\n$2\r\nm0\r\n,0\r\n", c.cmd("ZPOPMIN", "z"));
    assertEquals("*1\r\n*2\r\n$2\r\nm1\r\n,1\r\n", c.cmd("ZPOPMIN", "z", "1"));
    String info = c.cmd("COMMAND", "INFO", "zadd");
    assertTrue(info.contains("@sortedset"), info);
  }
}
