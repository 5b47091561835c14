package dev.larder.wal.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.FileLayer;
import dev.larder.wal.LogFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real file layer's reads at positions run from several threads at once and an interrupt fails
 * none of them (its own thread's or another's), as RandomAccessFile's reads did; the file is
 * written and read as before afterwards.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NioFileLayerReadTest {
  private static final int SIZE = 3 << 20;

  @TempDir Path dir;

  @Test
  void concurrentReadsSurviveInterruptsAndReadTheRightBytes() throws Exception {
    byte[] content = new byte[SIZE];
    new Random(35).nextBytes(content);
    try (LogFile file = FileLayer.standard().open(dir.resolve("f"))) {
      file.write(0, content, 0, content.length);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> readers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        readers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        readAt(file, content, new Random(seed), seed % 2 == 0);
                      } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                      }
                    }));
      }
      for (Thread t : readers) {
        t.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("a reader failed", failure.get());
      }
      byte[] more = {7, 8, 9};
      file.write(SIZE, more, 0, 3);
      byte[] back = new byte[3];
      assertEquals(3, file.read(SIZE, back, 0, 3));
      assertArrayEquals(more, back);
      assertEquals(SIZE + 3, file.size());
    }
  }

  /** Reads 200 random ranges (up to 1.5 MiB, past the end too), interrupting itself if asked. */
  private static void readAt(LogFile file, byte[] content, Random random, boolean interrupt)
      throws Exception {
    for (int i = 0; i < 200; i++) {
      int from = random.nextInt(SIZE);
      int length = random.nextInt(3 << 19);
      byte[] target = new byte[length + 2];
      if (interrupt && i % 3 == 0) {
        Thread.currentThread().interrupt();
      }
      boolean wasInterrupted = Thread.currentThread().isInterrupted();
      int n = file.read(from, target, 1, length);
      assertEquals(wasInterrupted, Thread.interrupted(), "the interrupt flag was changed");
      int expected = Math.min(length, SIZE - from);
      assertEquals(expected, n);
      assertArrayEquals(
          Arrays.copyOfRange(content, from, from + expected),
          Arrays.copyOfRange(target, 1, 1 + expected));
      assertTrue(target[0] == 0 && target[length + 1] == 0, "wrote outside the range");
    }
  }
}
