package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** memcached's meta protocol through the real decoder and handler. */
class MemcacheMetaProtocolTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.memcache();

  @AfterEach
  void close() {
    server.close();
  }

  private long cas(String reply) {
    Matcher m = Pattern.compile(" c(\\d+)").matcher(reply);
    assertTrue(m.find(), reply);
    return Long.parseLong(m.group(1));
  }

  @Test
  void setAndGetWithFlags() {
    assertEquals("HD\r\n", c.raw("ms k 5 F9 T100\r\nhello\r\n"));
    assertEquals("VA 5 f9 s5 t100 kk Oop\r\nhello\r\n", c.raw("mg k v f s t k Oop\r\n"));
    assertEquals("HD f9\r\n", c.raw("mg k f\r\n"));
    assertEquals("EN\r\n", c.raw("mg none v\r\n"));
    assertEquals("", c.raw("mg none v q\r\n"));
    assertEquals("MN\r\n", c.raw("mn\r\n"));
    assertEquals("HD t-1\r\n", c.raw("mg k T0 t\r\n"), "T updates the TTL before t shows it");
    assertEquals("", c.raw("ms q 1 q\r\nx\r\n"));
    assertTrue(c.raw("me k\r\n").startsWith("ME k exp=-1 la=0 cas="));
    assertEquals("EN\r\n", c.raw("me none\r\n"));
  }

  @Test
  void setModesAndCompareAndSwap() {
    assertEquals("NS\r\n", c.raw("ms k 1 MR\r\nx\r\n"));
    assertEquals("HD\r\n", c.raw("ms k 1 ME\r\nx\r\n"));
    assertEquals("NS\r\n", c.raw("ms k 1 ME\r\ny\r\n"));
    assertEquals("HD\r\n", c.raw("ms k 1 MA\r\nz\r\n"));
    assertEquals("HD\r\n", c.raw("ms k 1 MP\r\na\r\n"));
    assertEquals("VA 3\r\naxz\r\n", c.raw("mg k v\r\n"));
    long cas = cas(c.raw("mg k c\r\n"));
    assertEquals("EX\r\n", c.raw("ms k 1 C" + (cas + 1) + "\r\nq\r\n"));
    String ok = c.raw("ms k 1 c C" + cas + "\r\nq\r\n");
    assertTrue(ok.startsWith("HD c") && cas(ok) > cas, ok);
    assertEquals("CLIENT_ERROR invalid mode for ms M token\r\n", c.raw("ms k 1 MX\r\nq\r\n"));
    String b64 = "YmluYXJ5AGtleQ==";
    assertEquals("HD\r\n", c.raw("ms " + b64 + " 2 b\r\nhi\r\n"));
    assertEquals("VA 2 k" + b64 + " b\r\nhi\r\n", c.raw("mg " + b64 + " b v k\r\n"));
  }

  @Test
  void deleteAndArithmetic() {
    c.raw("ms k 1\r\nx\r\n");
    long cas = cas(c.raw("mg k c\r\n"));
    assertEquals("EX\r\n", c.raw("md k C" + (cas + 1) + "\r\n"));
    assertEquals("HD Oz\r\n", c.raw("md k Oz\r\n"));
    assertEquals("NF\r\n", c.raw("md k\r\n"));
    assertEquals("NF\r\n", c.raw("md k q\r\n"), "memcached 1.6.18's q hides HD only");
    assertEquals("NF\r\n", c.raw("ma n\r\n"));
    assertEquals("VA 2\r\n10\r\n", c.raw("ma n N0 J10 v\r\n"), "auto-vivified to J");
    assertEquals("VA 2\r\n15\r\n", c.raw("ma n D5 v\r\n"));
    assertEquals("VA 2\r\n12\r\n", c.raw("ma n MD D3 v\r\n"));
    assertEquals("HD\r\n", c.raw("ma n\r\n"));
    assertEquals("VA 2 t-1\r\n13\r\n", c.raw("mg n v t\r\n"));
    assertEquals(
        "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n",
        c.raw("ms s 1\r\nx\r\nma s\r\n").substring(4));
    assertEquals(
        "CLIENT_ERROR bad command line format\r\n", c.raw("mg " + "k".repeat(300) + "\r\n"));
  }
}
