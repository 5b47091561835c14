package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints taken while several connections write (SETs, INCRs, DELs, MULTI/EXEC, MSET, memcached
 * sets and flush_all) recover to exactly the state the keyspace held when it was closed: the walk
 * may see writes made after the checkpoint's sequence, and the records after it are replayed over
 * them.
 */
class CheckpointUnderWritesTest {
  private static final int WRITERS = 4;
  private static final int OPS = 3_000;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void checkpointsAmidWritesRecoverTheStateAtClose(@TempDir Path dir) throws Exception {
    Map<String, String> atClose;
    int checkpoints = 0;
    int checkpointsWithKeys = 0;
    long lastWritten = 0;
    try (TestServer s = new TestServer(Map.of(), dir, TestServer.START)) {
      AtomicBoolean done = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int id = w;
        writers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        write(s, id);
                      } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                      }
                    }));
      }
      Thread watcher =
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (Thread t : writers) {
                      try {
                        t.join();
                      } catch (InterruptedException e) {
                        return;
                      }
                    }
                    done.set(true);
                  });
      while (!done.get()) {
        lastWritten = s.log.checkpoint();
        checkpoints++;
        checkpointsWithKeys += lastWritten > 0 ? 1 : 0;
      }
      watcher.join();
      if (failure.get() != null) {
        throw new AssertionError("a writer failed", failure.get());
      }
      atClose = ServerLogRecoveryTest.dump(s.keyspace);
    }
    assertTrue(checkpoints >= 2, "checkpoints taken during the writes: " + checkpoints);
    assertTrue(checkpointsWithKeys >= 1, "checkpoints with keys: " + checkpointsWithKeys);
    try (TestServer s = new TestServer(Map.of(), dir, TestServer.START)) {
      // The newest checkpoint is loaded whole. It may hold no key: taken just after a writer's
      // flush_all, while that writer's last writes went to the log only.
      assertEquals(lastWritten, s.log.recovered().checkpointKeys());
      assertEquals(atClose, ServerLogRecoveryTest.dump(s.keyspace));
    }
  }

  private static void write(TestServer s, int id) {
    TestServer.Connection c = s.resp();
    TestServer.Connection m = s.memcache();
    for (int i = 0; i < OPS; i++) {
      String k = "k" + id + ":" + (i % 97);
      switch (i % 9) {
        case 0, 1 -> c.cmd("SET", k, "v" + i);
        case 2 -> c.cmd("INCR", "n" + id + ":" + (i % 13));
        case 3 -> c.cmd("DEL", k);
        case 4 -> {
          c.cmd("MULTI");
          c.cmd("SET", "a" + id, Integer.toString(i));
          c.cmd("SET", "b" + id, Integer.toString(i));
          c.cmd("HSET", "h" + id, "f" + (i % 7), Integer.toString(i));
          c.cmd("EXEC");
        }
        case 5 -> c.cmd("MSET", k, "m" + i, "x" + id, Integer.toString(i));
        case 6 -> m.raw("set mc" + id + ":" + (i % 31) + " 0 0 3\r\nabc\r\n");
        case 7 -> c.cmd("SET", "e" + id + ":" + (i % 11), "v", "EX", "3600");
        default -> {
          if (i % 900 == 8) {
            m.raw("flush_all\r\n");
          } else {
            c.cmd("APPEND", "ap" + id, "x");
          }
        }
      }
    }
  }
}
