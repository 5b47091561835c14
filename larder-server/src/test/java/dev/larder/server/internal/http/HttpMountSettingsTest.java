package dev.larder.server.internal.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.http.LarderHttpConfig;
import dev.larder.server.ServerConfig;
import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.Keyspace;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/** The HTTP settings follow the server's (checked without binding anything). */
class HttpMountSettingsTest {

  private static LarderHttpConfig settings(Map<String, String> server) {
    ServerConfig config = ServerConfig.of(server);
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try (Keyspace ks = new Keyspace(config.maxMemory(), System::currentTimeMillis)) {
      return new HttpMount(new ServerState(ks, config, scheduler), 0).config();
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void bindPasswordAndIdleTimeoutAreTheServers() {
    LarderHttpConfig open = settings(Map.of());
    assertTrue(open.bind().isLoopbackAddress());
    assertEquals(Optional.empty(), open.password());
    assertEquals(Duration.ofMinutes(5), open.idleTimeout());

    LarderHttpConfig beyond =
        settings(
            Map.of(
                "bind",
                "0.0.0.0",
                "requirepass",
                "pw",
                "memcache-port",
                "-1",
                "idle-timeout-seconds",
                "0"));
    assertEquals("0.0.0.0", beyond.bind().getHostAddress());
    assertEquals(Optional.of("pw"), beyond.password());
    assertEquals(
        LarderHttpConfig.DEFAULT_IDLE_TIMEOUT,
        beyond.idleTimeout(),
        "an HTTP connection never stays open forever");
  }
}
