package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** String commands through the real decoder and handler, replies compared byte for byte. */
class RespStringCommandsTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void setGetAndOptions() {
    assertEquals("$-1\r\n", c.cmd("GET", "k"));
    assertEquals("+OK\r\n", c.cmd("SET", "k", "v"));
    assertEquals("$1\r\nv\r\n", c.cmd("get", "k"));
    assertEquals("$-1\r\n", c.cmd("SET", "k", "w", "NX"));
    assertEquals("+OK\r\n", c.cmd("SET", "k", "w", "XX"));
    assertEquals("$-1\r\n", c.cmd("SET", "other", "w", "XX"));
    assertEquals("$1\r\nw\r\n", c.cmd("SET", "k", "x", "GET"));
    assertEquals("-ERR syntax error\r\n", c.cmd("SET", "k", "v", "NX", "XX"));
    assertEquals("-ERR syntax error\r\n", c.cmd("SET", "k", "v", "EX", "1", "PX", "5"));
    assertEquals(
        "-ERR invalid expire time in 'set' command\r\n", c.cmd("SET", "k", "v", "EX", "0"));
    assertEquals(
        "-ERR value is not an integer or out of range\r\n", c.cmd("SET", "k", "v", "EX", "x"));
    assertEquals("-ERR wrong number of arguments for 'get' command\r\n", c.cmd("GET"));
  }

  @Test
  void expiryOptionsFollowTheClock() {
    c.cmd("SET", "k", "v", "EX", "10");
    assertEquals(":10\r\n", c.cmd("TTL", "k"));
    assertEquals(":10000\r\n", c.cmd("PTTL", "k"));
    c.cmd("SET", "k", "v2", "KEEPTTL");
    server.now.addAndGet(9_999);
    assertEquals("$2\r\nv2\r\n", c.cmd("GET", "k"));
    server.now.addAndGet(1);
    assertEquals("$-1\r\n", c.cmd("GET", "k"));
    c.cmd("SET", "a", "1", "PXAT", Long.toString(TestServer.START + 20_000));
    assertEquals(":10000\r\n", c.cmd("PTTL", "a"));
    c.cmd("SET", "b", "1", "EXAT", Long.toString(TestServer.START / 1000 + 30));
    assertEquals(":20\r\n", c.cmd("TTL", "b"));
    assertEquals("+OK\r\n", c.cmd("SETEX", "s", "5", "v"));
    assertEquals("+OK\r\n", c.cmd("PSETEX", "p", "5000", "v"));
    assertEquals(":5\r\n", c.cmd("TTL", "p"));
    assertEquals("-ERR invalid expire time in 'setex' command\r\n", c.cmd("SETEX", "s", "-1", "v"));
  }

  @Test
  void getexGetdelAndMulti() {
    c.cmd("SET", "k", "v");
    assertEquals("$1\r\nv\r\n", c.cmd("GETEX", "k", "EX", "100"));
    assertEquals(":100\r\n", c.cmd("TTL", "k"));
    assertEquals("$1\r\nv\r\n", c.cmd("GETEX", "k", "PERSIST"));
    assertEquals(":-1\r\n", c.cmd("TTL", "k"));
    assertEquals("$1\r\nv\r\n", c.cmd("GETDEL", "k"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "k"));
    assertEquals("+OK\r\n", c.cmd("MSET", "a", "1", "b", "2"));
    c.cmd("HSET", "h", "f", "v");
    assertEquals("*4\r\n$1\r\n1\r\n$1\r\n2\r\n$-1\r\n$-1\r\n", c.cmd("MGET", "a", "b", "c", "h"));
    assertEquals(":0\r\n", c.cmd("MSETNX", "a", "9", "z", "9"));
    assertEquals("$-1\r\n", c.cmd("GET", "z"));
    assertEquals(":1\r\n", c.cmd("MSETNX", "y", "9", "z", "9"));
    assertEquals(
        "-ERR wrong number of arguments for 'mset' command\r\n", c.cmd("MSET", "a", "1", "b"));
    assertEquals(":1\r\n", c.cmd("SETNX", "n", "1"));
    assertEquals(":0\r\n", c.cmd("SETNX", "n", "2"));
  }

  @Test
  void appendRangesAndLength() {
    assertEquals(":5\r\n", c.cmd("APPEND", "k", "Hello"));
    assertEquals(":11\r\n", c.cmd("APPEND", "k", " World"));
    assertEquals(":11\r\n", c.cmd("STRLEN", "k"));
    assertEquals(":0\r\n", c.cmd("STRLEN", "none"));
    assertEquals("$5\r\nHello\r\n", c.cmd("GETRANGE", "k", "0", "4"));
    assertEquals("$3\r\nrld\r\n", c.cmd("GETRANGE", "k", "-3", "-1"));
    assertEquals("$11\r\nHello World\r\n", c.cmd("GETRANGE", "k", "0", "-1"));
    assertEquals("$0\r\n\r\n", c.cmd("GETRANGE", "k", "5", "2"));
    assertEquals(":11\r\n", c.cmd("SETRANGE", "k", "6", "Redis"));
    assertEquals("$11\r\nHello Redis\r\n", c.cmd("GET", "k"));
    assertEquals(":8\r\n", c.cmd("SETRANGE", "pad", "5", "abc"));
    assertEquals("$8\r\n\0\0\0\0\0abc\r\n", c.cmd("GET", "pad"));
    assertEquals("-ERR offset is out of range\r\n", c.cmd("SETRANGE", "k", "-1", "x"));
  }

  @Test
  void counters() {
    assertEquals(":1\r\n", c.cmd("INCR", "n"));
    assertEquals(":11\r\n", c.cmd("INCRBY", "n", "10"));
    assertEquals(":10\r\n", c.cmd("DECR", "n"));
    assertEquals(":-5\r\n", c.cmd("DECRBY", "n", "15"));
    c.cmd("SET", "big", Long.toString(Long.MAX_VALUE));
    assertEquals("-ERR increment or decrement would overflow\r\n", c.cmd("INCR", "big"));
    c.cmd("SET", "s", "abc");
    assertEquals("-ERR value is not an integer or out of range\r\n", c.cmd("INCR", "s"));
    c.cmd("SET", "sp", " 1");
    assertEquals("-ERR value is not an integer or out of range\r\n", c.cmd("INCR", "sp"));
    c.cmd("SET", "f", "10.50");
    assertEquals("$4\r\n10.6\r\n", c.cmd("INCRBYFLOAT", "f", "0.1"));
    c.cmd("SET", "g", "5.0e3");
    assertEquals("$4\r\n5200\r\n", c.cmd("INCRBYFLOAT", "g", "2.0e2"));
    assertEquals("$3\r\n0.3\r\n", c.cmd("INCRBYFLOAT", "new", "0.3"));
    assertEquals("-ERR value is not a valid float\r\n", c.cmd("INCRBYFLOAT", "s", "1"));
    c.cmd("HSET", "h", "a", "1");
    assertEquals("-" + RespError.WRONGTYPE + "\r\n", c.cmd("INCR", "h"));
    assertEquals("-" + RespError.WRONGTYPE + "\r\n", c.cmd("GET", "h"));
    assertEquals("-" + RespError.WRONGTYPE + "\r\n", c.cmd("APPEND", "h", "x"));
  }
}
