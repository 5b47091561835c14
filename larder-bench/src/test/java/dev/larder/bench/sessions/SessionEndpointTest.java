package dev.larder.bench.sessions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.testing.RequiredTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sessions bench's endpoint under its built-in siege driver: concurrent requests on one session
 * conflict, retry and lose no update, with Larder's log on and with Redis (redis-server required
 * under CI, skipped elsewhere when it is missing).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionEndpointTest {

  private static final int CLIENTS = 4;

  @TempDir Path directory;

  @Test
  void larderWithLogLosesNoUpdateOfAContendedSession() throws Exception {
    checkNoLostUpdate("larder-always");
  }

  @Test
  void redisWithAppendFsyncAlwaysLosesNoUpdateOfAContendedSession() throws Exception {
    RequiredTool.available(RedisServer.unavailableReason().orElse(null), "redis-server");
    checkNoLostUpdate("redis-always");
  }

  /**
   * Every client requests session 7. Its counter must count every request answered: at least the
   * ones the driver counted, at most one more per client (a response that arrived after the
   * deadline is not counted, as siege does not count it).
   */
  private void checkNoLostUpdate(String kind) throws Exception {
    try (Stores.Opened opened =
            Stores.open(kind, Files.createDirectories(directory.resolve(kind)), CLIENTS + 2);
        SessionEndpoint endpoint = new SessionEndpoint(opened.store(), 10, CLIENTS + 2)) {
      SiegeDriver siege = new SiegeDriver(endpoint.url() + "?session=7");
      long answered = 0;
      int runs = 0;
      // A loaded machine may answer nothing within a short run at first: run until it has.
      while (answered < 20 && runs < 30) {
        SiegeDriver.Result r = siege.run(CLIENTS, 1);
        assertEquals(0, r.failed());
        answered += r.transactions();
        runs++;
      }
      assertTrue(answered > 0, "no request answered in " + runs + " runs");
      long count = opened.store().touch(7) - 1;
      assertTrue(
          count >= answered && count <= answered + (long) CLIENTS * runs,
          "session counted "
              + count
              + " requests, the driver "
              + answered
              + " in "
              + runs
              + " runs");
      assertEquals(1, opened.store().touch(8), "another session is untouched");
    }
  }
}
