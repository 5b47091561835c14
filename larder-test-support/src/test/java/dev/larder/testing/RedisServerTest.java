package dev.larder.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisServerTest {

  @Test
  void answersWithTheGivenSettingsAndPersistenceOffUntilClosed() throws Exception {
    int port;
    try (RedisServer redis = RedisServer.start("--maxmemory-policy", "allkeys-lfu")) {
      port = redis.port();
      assertEquals("+PONG\r\n", ask(port, "PING\r\n", 7));
      assertTrue(
          ask(port, "CONFIG GET maxmemory-policy\r\n", 64).contains("allkeys-lfu"),
          "the caller's argument");
      assertTrue(ask(port, "CONFIG GET appendonly\r\n", 64).endsWith("$2\r\nno\r\n"), "no AOF");
      assertTrue(ask(port, "CONFIG GET save\r\n", 64).endsWith("$0\r\n\r\n"), "no snapshots");
    }
    assertThrows(IOException.class, () -> ask(port, "PING\r\n", 7), "stopped by close");
  }

  @Test
  void aServerThatCannotStartFailsSayingWhy() {
    AssertionError e =
        assertThrows(AssertionError.class, () -> RedisServer.start("--no-such-setting", "1"));
    assertTrue(e.getMessage().contains("no-such-setting"), e.getMessage());
  }

  /** Sends an inline command and returns up to {@code max} bytes of the reply. */
  private static String ask(int port, String command, int max) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(command.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buffer = new byte[max];
      int n = in.read(buffer);
      return n < 0 ? "" : new String(buffer, 0, n, StandardCharsets.US_ASCII);
    }
  }
}
