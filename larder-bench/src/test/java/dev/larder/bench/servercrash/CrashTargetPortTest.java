package dev.larder.bench.servercrash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.larder.bench.harness.TakenPort;
import dev.larder.testing.RequiredTool;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash target whose port is taken between found free and bound starts on a fresh one, with its
 * data: the write before the move is read after a restart.
 */
@Timeout(180)
class CrashTargetPortTest {

  @Test
  void aServerWhosePortWasTakenStartsOnAFreshOneWithItsData(@TempDir Path dir) throws Exception {
    RequiredTool.onPath("redis-server", "redis-server");
    Path data = Files.createDirectories(dir.resolve("data"));
    CrashTarget target = new CrashTarget("Redis", data, "always");
    CrashTarget.Running first = target.start();
    try (Wire w = new Wire(first.respPort())) {
      assertEquals("OK", w.call("SET", "k", "v"));
    }
    first.kill();
    try (TakenPort taken = new TakenPort()) {
      CrashTarget.Running again = target.start(taken);
      try {
        assertEquals(1, taken.handedOut(), "the taken port was tried first");
        assertNotEquals(taken.port(), again.respPort());
        try (Wire w = new Wire(again.respPort())) {
          assertEquals("v", w.call("GET", "k"));
        }
      } finally {
        again.kill();
      }
    }
  }
}
