package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP; each expected reply was read from redis-server 7.0.15
 * (binary values are compared by {@code RedisDifferentialTest}).
 */
class RespBitCommandsTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void setbitAndGetbit() {
    assertEquals(":0\r\n", c.cmd("SETBIT", "b", "7", "1"));
    assertEquals(":1\r\n", c.cmd("SETBIT", "b", "7", "1"));
    assertEquals(":1\r\n", c.cmd("GETBIT", "b", "7"));
    assertEquals(":0\r\n", c.cmd("GETBIT", "b", "100"));
    assertEquals("$1\r\n\u0001\r\n", c.cmd("GET", "b"));
    assertEquals(":0\r\n", c.cmd("SETBIT", "b", "17", "1"));
    assertEquals(":3\r\n", c.cmd("STRLEN", "b"), "grown with zero bytes");
    assertEquals("-ERR bit is not an integer or out of range\r\n", c.cmd("SETBIT", "b", "2", "x"));
    assertEquals("-ERR bit is not an integer or out of range\r\n", c.cmd("SETBIT", "b", "2", "2"));
    String badOffset = "-ERR bit offset is not an integer or out of range\r\n";
    assertEquals(badOffset, c.cmd("SETBIT", "b", "-1", "1"));
    assertEquals(badOffset, c.cmd("SETBIT", "b", "4294967296", "1"));
    assertEquals(badOffset, c.cmd("GETBIT", "b", "x"));
    c.cmd("HSET", "h", "f", "v");
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        c.cmd("SETBIT", "h", "1", "1"));
  }

  @Test
  void bitcountByBytesAndBits() {
    c.cmd("SET", "s", "foobar");
    assertEquals(":26\r\n", c.cmd("BITCOUNT", "s"));
    assertEquals(":4\r\n", c.cmd("BITCOUNT", "s", "0", "0"));
    assertEquals(":6\r\n", c.cmd("BITCOUNT", "s", "1", "1"));
    assertEquals(":1\r\n", c.cmd("BITCOUNT", "s", "1", "1", "BIT"));
    assertEquals(":17\r\n", c.cmd("BITCOUNT", "s", "5", "30", "BIT"));
    assertEquals(":0\r\n", c.cmd("BITCOUNT", "s", "-1", "-2"));
    assertEquals("-ERR syntax error\r\n", c.cmd("BITCOUNT", "s", "0"));
    assertEquals("-ERR syntax error\r\n", c.cmd("BITCOUNT", "s", "0", "1", "foo"));
    assertEquals(":0\r\n", c.cmd("BITCOUNT", "nokey", "x", "y"), "a missing key is 0 first");
  }

  @Test
  void bitposFindsTheFirstSetOrClearBit() {
    c.raw(TestServer.Connection.multibulk("SET", "p", "\u00ff\u00f0\u0000"));
    assertEquals(":12\r\n", c.cmd("BITPOS", "p", "0"));
    assertEquals(":0\r\n", c.cmd("BITPOS", "p", "1"));
    assertEquals(":-1\r\n", c.cmd("BITPOS", "p", "1", "2"));
    c.raw(TestServer.Connection.multibulk("SET", "ones", "\u00ff\u00ff"));
    assertEquals(":16\r\n", c.cmd("BITPOS", "ones", "0"), "past the end reads as zero");
    assertEquals(":16\r\n", c.cmd("BITPOS", "ones", "0", "0"));
    assertEquals(":-1\r\n", c.cmd("BITPOS", "ones", "0", "0", "-1"), "not with an end given");
    assertEquals(":7\r\n", c.cmd("BITPOS", "ones", "1", "7", "15", "BIT"));
    assertEquals(":-1\r\n", c.cmd("BITPOS", "nokey", "1"));
    assertEquals(":0\r\n", c.cmd("BITPOS", "nokey", "0"));
    c.cmd("SET", "e", "");
    assertEquals(":-1\r\n", c.cmd("BITPOS", "e", "0"));
    assertEquals("-ERR The bit argument must be 1 or 0.\r\n", c.cmd("BITPOS", "e", "2"));
  }

  @Test
  void bitopCombinesAndStores() {
    c.cmd("SET", "a", "abc");
    c.cmd("SET", "b", "a");
    assertEquals(":3\r\n", c.cmd("BITOP", "AND", "d", "a", "b"));
    assertEquals("$3\r\na\u0000\u0000\r\n", c.cmd("GET", "d"));
    assertEquals(":3\r\n", c.cmd("BITOP", "or", "d", "a", "b"));
    assertEquals("$3\r\nabc\r\n", c.cmd("GET", "d"));
    assertEquals(":3\r\n", c.cmd("BITOP", "XOR", "d", "a", "b"));
    assertEquals("$3\r\n\u0000bc\r\n", c.cmd("GET", "d"));
    assertEquals(":3\r\n", c.cmd("BITOP", "NOT", "d", "a"));
    byte[] not = c.cmd("GET", "d").substring(4, 7).getBytes(StandardCharsets.ISO_8859_1);
    assertEquals(0x9e, not[0] & 0xFF);
    assertEquals(
        "-ERR BITOP NOT must be called with a single source key.\r\n",
        c.cmd("BITOP", "NOT", "d", "a", "b"));
    assertEquals("-ERR syntax error\r\n", c.cmd("BITOP", "FOO", "d", "a"));
    assertEquals(":0\r\n", c.cmd("BITOP", "AND", "d", "nokey"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "d"), "an empty result deletes the destination");
  }
}
