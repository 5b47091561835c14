package dev.larder.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.larder.bench.harness.TakenPort;
import dev.larder.testing.RequiredTool;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A child server (redis-server, memcached) whose port is taken between found free and bound starts
 * on a fresh port, and answers there.
 */
@Timeout(120)
class ServerProcessPortTest {

  @Test
  void redisServerMovesOffAPortTakenBeforeItBoundIt() throws Exception {
    RequiredTool.onPath("redis-server", "redis-server");
    try (TakenPort taken = new TakenPort();
        ServerProcess redis = ServerProcess.redis(64L << 20, null, "no", taken)) {
      assertEquals(1, taken.handedOut(), "the taken port was tried first");
      assertNotEquals(taken.port(), redis.respPort());
      assertEquals("+PONG\r\n", ask(redis.respPort(), "PING\r\n", 7));
    }
  }

  @Test
  void memcachedMovesOffAPortTakenBeforeItBoundIt() throws Exception {
    RequiredTool.onPath("memcached", "memcached");
    try (TakenPort taken = new TakenPort();
        ServerProcess memcached = ServerProcess.memcached(64L << 20, taken)) {
      assertEquals(1, taken.handedOut(), "the taken port was tried first");
      assertNotEquals(taken.port(), memcached.memcachePort());
      assertEquals("VERSION ", ask(memcached.memcachePort(), "version\r\n", 8));
    }
  }

  private static String ask(int port, String request, int replyBytes) throws Exception {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      return new String(in.readNBytes(replyBytes), StandardCharsets.US_ASCII);
    }
  }
}
