package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Meta's {@code t} after a TTL the same command gives ({@code T}, or {@code N} making the item) is
 * that TTL, as memcached 1.6.18 answers it ({@code ma k T300 v t} gives {@code t300}; memcached's
 * own t/metaget.t requires below 301), even when the server's clock moves on while the command
 * runs: the clock here advances a millisecond at every read.
 */
class MetaTtlTest {

  @Test
  void tIsTheTtlTheSameCommandGave() {
    AtomicLong clock = new AtomicLong(TestServer.START);
    try (TestServer server = new TestServer(Map.of(), clock::incrementAndGet)) {
      TestServer.Connection c = server.memcache();
      assertEquals("HD\r\n", c.raw("ma k N90\r\n"));
      assertEquals("VA 1 t300\r\n1\r\n", c.raw("ma k T300 v t\r\n"));
      assertEquals("VA 0 s0 t30 W\r\n\r\n", c.raw("mg fresh s v N30 t\r\n"));
      assertEquals("HD t100\r\n", c.raw("mg k T100 t\r\n"));
    }
  }
}
