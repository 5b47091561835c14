package dev.larder.wal.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.wal.FileLayer;
import dev.larder.wal.LogFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint is read in large arrays ({@link CheckpointLayout#read}): every entry comes back
 * whole and in order wherever the arrays' ends fall (inside a length, inside an entry, on the
 * trailer), and a checkpoint damaged anywhere is refused with the offset a one-entry-at-a-time read
 * named.
 */
class CheckpointLayoutChunksTest {

  @TempDir Path dir;

  private List<byte[]> entries(Random random, int count) {
    List<byte[]> entries = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] e = new byte[random.nextInt(300)];
      random.nextBytes(e);
      entries.add(e);
    }
    return entries;
  }

  private Path write(List<byte[]> entries, long sequence) throws IOException {
    Path path = dir.resolve("checkpoint-" + sequence + ".ckp");
    try (LogFile file = FileLayer.standard().open(path)) {
      CheckpointLayout.Writer writer = new CheckpointLayout.Writer(file, sequence);
      for (byte[] e : entries) {
        writer.add(e);
      }
      writer.finish();
    }
    return path;
  }

  private static List<byte[]> read(Path path, int chunkBytes) throws IOException {
    List<byte[]> read = new ArrayList<>();
    try (LogFile file = FileLayer.standard().open(path)) {
      CheckpointLayout.Content content = CheckpointLayout.read(file, "c", chunkBytes);
      content.forEach(
          (b, offset, length) -> read.add(Arrays.copyOfRange(b, offset, offset + length)));
      assertEquals(read.size(), content.count());
    }
    return read;
  }

  @Test
  void everyEntryComesBackWhereverTheArraysEnd() throws IOException {
    Random random = new Random(7);
    List<byte[]> entries = entries(random, 400);
    Path path = write(entries, 42);
    for (int chunk : new int[] {1, 3, 7, 64, 301, 4096, 1 << 20}) {
      List<byte[]> read = read(path, chunk);
      assertEquals(entries.size(), read.size(), "chunk " + chunk);
      for (int i = 0; i < entries.size(); i++) {
        assertArrayEquals(entries.get(i), read.get(i), "entry " + i + ", chunk " + chunk);
      }
    }
    try (LogFile file = FileLayer.standard().open(path)) {
      assertEquals(42, CheckpointLayout.read(file, "c").sequence());
    }
  }

  @Test
  void aDamagedOrCutCheckpointIsRefusedAtTheSameOffsetWhateverTheArrays() throws IOException {
    Random random = new Random(11);
    Path path = write(entries(random, 50), 9);
    byte[] good = Files.readAllBytes(path);
    for (int trial = 0; trial < 200; trial++) {
      byte[] bad;
      if (random.nextBoolean()) {
        bad = good.clone();
        bad[random.nextInt(bad.length)] ^= (byte) (1 << random.nextInt(8));
      } else {
        bad = Arrays.copyOf(good, random.nextInt(good.length));
      }
      Files.write(path, bad);
      long offset = refusedAt(path, 1 << 20);
      for (int chunk : new int[] {5, 64, 333}) {
        assertEquals(offset, refusedAt(path, chunk), "trial " + trial + ", chunk " + chunk);
      }
    }
  }

  private static long refusedAt(Path path, int chunkBytes) {
    CheckpointLayout.CheckpointDamage damage =
        assertThrows(CheckpointLayout.CheckpointDamage.class, () -> read(path, chunkBytes));
    return damage.offset;
  }
}
