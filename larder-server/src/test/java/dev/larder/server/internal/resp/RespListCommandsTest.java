package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The list commands through the real decoder and handler. The expected replies are Redis 7.0.15's
 * to the same commands, taken byte for byte on loopback.
 */
class RespListCommandsTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void everyListCommandAnswersAsRedisDoes() {
    assertEquals(":3\r\n", c.cmd("rpush", "l", "a", "b", "c"));
    assertEquals(":5\r\n", c.cmd("lpush", "l", "x", "y"));
    assertEquals(
        "*5\r\n$1\r\ny\r\n$1\r\nx\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n",
        c.cmd("lrange", "l", "0", "-1"));
    assertEquals("*2\r\n$1\r\nb\r\n$1\r\nc\r\n", c.cmd("lrange", "l", "-2", "100"));
    assertEquals("*0\r\n", c.cmd("lrange", "l", "5", "1"));
    assertEquals(":5\r\n", c.cmd("llen", "l"));
    assertEquals(":0\r\n", c.cmd("llen", "none"));
    assertEquals("$1\r\ny\r\n", c.cmd("lindex", "l", "0"));
    assertEquals("$1\r\nc\r\n", c.cmd("lindex", "l", "-1"));
    assertEquals("$-1\r\n", c.cmd("lindex", "l", "9"));
    assertEquals(":0\r\n", c.cmd("lpushx", "none", "a"));
    assertEquals(":6\r\n", c.cmd("rpushx", "l", "z"));
    assertEquals("$1\r\ny\r\n", c.cmd("lpop", "l"));
    assertEquals("$1\r\nz\r\n", c.cmd("rpop", "l"));
    assertEquals("*2\r\n$1\r\nx\r\n$1\r\na\r\n", c.cmd("lpop", "l", "2"));
    assertEquals("*0\r\n", c.cmd("rpop", "l", "0"));
    assertEquals("*-1\r\n", c.cmd("lpop", "none", "0"));
    assertEquals("$-1\r\n", c.cmd("lpop", "none"));
    assertEquals("-ERR value is out of range, must be positive\r\n", c.cmd("lpop", "l", "-1"));
    assertEquals("*2\r\n$1\r\nb\r\n$1\r\nc\r\n", c.cmd("lrange", "l", "0", "-1"));
    assertEquals("+OK\r\n", c.cmd("lset", "l", "0", "q"));
    assertEquals("-ERR index out of range\r\n", c.cmd("lset", "l", "5", "q"));
    assertEquals("-ERR no such key\r\n", c.cmd("lset", "none", "0", "q"));
    assertEquals(":3\r\n", c.cmd("linsert", "l", "before", "q", "p"));
    assertEquals(":4\r\n", c.cmd("linsert", "l", "after", "c", "d"));
    assertEquals(":-1\r\n", c.cmd("linsert", "l", "before", "zz", "e"));
    assertEquals(":0\r\n", c.cmd("linsert", "none", "before", "a", "b"));
    assertEquals("-ERR syntax error\r\n", c.cmd("linsert", "l", "middle", "a", "b"));
    assertEquals(
        "*4\r\n$1\r\np\r\n$1\r\nq\r\n$1\r\nc\r\n$1\r\nd\r\n", c.cmd("lrange", "l", "0", "-1"));
    assertEquals(":5\r\n", c.cmd("rpush", "r", "a", "b", "a", "c", "a"));
    assertEquals(":2\r\n", c.cmd("lrem", "r", "2", "a"));
    assertEquals("*3\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\na\r\n", c.cmd("lrange", "r", "0", "-1"));
    assertEquals(":5\r\n", c.cmd("rpush", "r2", "a", "b", "a", "c", "a"));
    assertEquals(":2\r\n", c.cmd("lrem", "r2", "-2", "a"));
    assertEquals("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", c.cmd("lrange", "r2", "0", "-1"));
    assertEquals(":0\r\n", c.cmd("lrem", "r2", "0", "zz"));
    assertEquals(":1\r\n", c.cmd("lrem", "r2", "0", "a"));
    assertEquals(":1\r\n", c.cmd("lrem", "r2", "0", "b"));
    assertEquals(":1\r\n", c.cmd("lrem", "r2", "0", "c"));
    assertEquals(":0\r\n", c.cmd("exists", "r2"));
    assertEquals(":5\r\n", c.cmd("rpush", "t", "1", "2", "3", "4", "5"));
    assertEquals("+OK\r\n", c.cmd("ltrim", "t", "1", "-2"));
    assertEquals("*3\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n", c.cmd("lrange", "t", "0", "-1"));
    assertEquals("+OK\r\n", c.cmd("ltrim", "t", "5", "10"));
    assertEquals(":0\r\n", c.cmd("exists", "t"));
    assertEquals(":8\r\n", c.cmd("rpush", "p", "a", "b", "c", "1", "2", "3", "c", "c"));
    assertEquals(":2\r\n", c.cmd("lpos", "p", "c"));
    assertEquals(":6\r\n", c.cmd("lpos", "p", "c", "rank", "2"));
    assertEquals(":7\r\n", c.cmd("lpos", "p", "c", "rank", "-1"));
    assertEquals("*3\r\n:2\r\n:6\r\n:7\r\n", c.cmd("lpos", "p", "c", "count", "0"));
    assertEquals("*2\r\n:7\r\n:6\r\n", c.cmd("lpos", "p", "c", "count", "2", "rank", "-1"));
    assertEquals("*1\r\n:2\r\n", c.cmd("lpos", "p", "c", "count", "0", "maxlen", "3"));
    assertEquals("$-1\r\n", c.cmd("lpos", "p", "zz"));
    assertEquals("*0\r\n", c.cmd("lpos", "p", "zz", "count", "0"));
    assertEquals(
        "-ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list\r\n",
        c.cmd("lpos", "p", "c", "rank", "0"));
    assertEquals("-ERR COUNT can't be negative\r\n", c.cmd("lpos", "p", "c", "count", "-1"));
    assertEquals("-ERR MAXLEN can't be negative\r\n", c.cmd("lpos", "p", "c", "maxlen", "-1"));
    assertEquals("-ERR syntax error\r\n", c.cmd("lpos", "p", "c", "bogus"));
    assertEquals(":3\r\n", c.cmd("rpush", "m", "a", "b", "c"));
    assertEquals("$1\r\na\r\n", c.cmd("lmove", "m", "n", "left", "right"));
    assertEquals("$1\r\nc\r\n", c.cmd("lmove", "m", "n", "right", "left"));
    assertEquals("*2\r\n$1\r\nc\r\n$1\r\na\r\n", c.cmd("lrange", "n", "0", "-1"));
    assertEquals("$1\r\nb\r\n", c.cmd("rpoplpush", "m", "m"));
    assertEquals("*1\r\n$1\r\nb\r\n", c.cmd("lrange", "m", "0", "-1"));
    assertEquals("$-1\r\n", c.cmd("lmove", "none", "n", "left", "left"));
    assertEquals("-ERR syntax error\r\n", c.cmd("lmove", "m", "n", "up", "left"));
    assertEquals("+OK\r\n", c.cmd("set", "s", "v"));
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("lmove", "m", "s", "left", "left"));
    assertEquals("*1\r\n$1\r\nb\r\n", c.cmd("lrange", "m", "0", "-1"));
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("lmove", "s", "m", "left", "left"));
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("lpush", "s", "a"));
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("lrange", "s", "0", "-1"));
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("llen", "s"));
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("lpop", "s"));
    assertEquals("*2\r\n$1\r\nm\r\n*1\r\n$1\r\nb\r\n", c.cmd("lmpop", "2", "none", "m", "left"));
    assertEquals("*-1\r\n", c.cmd("lmpop", "2", "none", "m", "right", "count", "5"));
    assertEquals("*-1\r\n", c.cmd("lmpop", "1", "none", "left"));
    assertEquals("-ERR numkeys should be greater than 0\r\n", c.cmd("lmpop", "0", "m", "left"));
    assertEquals("-ERR syntax error\r\n", c.cmd("lmpop", "1", "m", "middle"));
    assertEquals(
        "-ERR count should be greater than 0\r\n", c.cmd("lmpop", "1", "m", "left", "count", "0"));
    assertEquals("-ERR syntax error\r\n", c.cmd("lmpop", "3", "m", "left"));
    assertEquals(":2\r\n", c.cmd("rpush", "z", "a", "b"));
    assertEquals(
        "-ERR syntax error\r\n", c.cmd("lmpop", "1", "z", "left", "count", "1", "count", "2"));
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("lmpop", "1", "s", "left"));
    assertEquals("*2\r\n$1\r\nz\r\n$1\r\na\r\n", c.cmd("blpop", "none", "z", "0"));
    assertEquals("*2\r\n$1\r\nz\r\n$1\r\nb\r\n", c.cmd("brpop", "z", "0"));
    assertEquals("-ERR timeout is negative\r\n", c.cmd("blpop", "z", "-1"));
    assertEquals("-ERR timeout is not a float or out of range\r\n", c.cmd("blpop", "z", "abc"));
    assertEquals(":1\r\n", c.cmd("rpush", "bm", "a"));
    assertEquals("$1\r\na\r\n", c.cmd("blmove", "bm", "bm2", "left", "right", "0"));
    assertEquals("$1\r\na\r\n", c.cmd("brpoplpush", "bm2", "bm", "0"));
    assertEquals(
        "*2\r\n$2\r\nbm\r\n*1\r\n$1\r\na\r\n",
        c.cmd("blmpop", "0", "2", "none", "bm", "right", "count", "3"));
    assertEquals("+none\r\n", c.cmd("type", "bm"));
    assertEquals(":1\r\n", c.cmd("rpush", "tl", "a"));
    assertEquals("+list\r\n", c.cmd("type", "tl"));
  }

  @Test
  void timeoutArguments() {
    assertEquals("-ERR timeout is out of range\r\n", c.cmd("BLPOP", "k", "0x7FFFFFFFFFFFFF"));
    assertEquals("-ERR timeout is not a float or out of range\r\n", c.cmd("BLPOP", "k", "1.5d"));
    assertEquals("-ERR timeout is not a float or out of range\r\n", c.cmd("BLPOP", "k", "NaN"));
    assertEquals("-ERR timeout is negative\r\n", c.cmd("BLMOVE", "k", "d", "LEFT", "LEFT", "-0.5"));
  }

  @Test
  void multiPopCountsThatAreNotNumbers() {
    assertEquals("-ERR numkeys should be greater than 0\r\n", c.cmd("LMPOP", "a", "k", "LEFT"));
    assertEquals(
        "-ERR count should be greater than 0\r\n", c.cmd("LMPOP", "1", "k", "LEFT", "COUNT", "a"));
    assertEquals(
        "-ERR numkeys should be greater than 0\r\n", c.cmd("BLMPOP", "0", "-1", "k", "LEFT"));
  }
}
