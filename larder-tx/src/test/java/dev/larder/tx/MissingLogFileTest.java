package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.wal.LogCorruptedException;
import dev.larder.wal.RecoveryReport;
import dev.larder.wal.WalConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store whose directory lost a log segment or its checkpoint must not open with committed data
 * gone and nothing said: it refuses, naming what is missing, and salvage opens reporting it. 4 KiB
 * segments, fsync {@code always}, 200 committed puts of 300-byte values, the files deleted while it
 * is closed.
 */
@Timeout(60)
class MissingLogFileTest {

  static final TxCacheSpec<String, String> KEYS =
      TxCacheSpec.of("keys", Codecs.strings(), Codecs.strings());

  @TempDir Path dir;

  private TxStore open(boolean salvage) {
    return TxStore.builder()
        .cache(KEYS)
        .persistence(WalConfig.of(dir).withSegmentBytes(4096).withSalvage(salvage))
        .checkpointEvery(Duration.ZERO)
        .build();
  }

  private void put200(int checkpointAfter) {
    try (TxStore store = open(false)) {
      TxCache<String, String> keys = store.cache(KEYS);
      for (long i = 1; i <= 200; i++) {
        keys.put("key-" + i, value(i));
        if (i == checkpointAfter) {
          store.checkpoint();
        }
      }
    }
  }

  private List<Path> files(String suffix) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
    }
  }

  private static long present(TxStore store) {
    TxCache<String, String> keys = store.cache(KEYS);
    long n = 0;
    for (long i = 1; i <= 200; i++) {
      String v = keys.get("key-" + i);
      if (v != null) {
        assertEquals(value(i), v);
        n++;
      }
    }
    return n;
  }

  /** About 300 bytes: a 4 KiB segment holds a dozen commits, as in the report. */
  private static String value(long i) {
    return ("value " + i + " ").repeat(40).substring(0, 300);
  }

  @Test
  void aDeletedMiddleSegmentIsRefusedAndSalvageReportsIt() throws Exception {
    put200(-1);
    List<Path> segments = files(".wal");
    assertTrue(segments.size() > 4, segments.toString());
    Path middle = segments.get(segments.size() / 2);
    Files.delete(middle);
    String name = middle.getFileName().toString();

    LogCorruptedException e = assertThrows(LogCorruptedException.class, () -> open(false));
    assertTrue(e.getMessage().contains(name), e.getMessage());

    try (TxStore store = open(true)) {
      RecoveryReport report = store.recovery().orElseThrow();
      assertTrue(report.problems().toString().contains(name), report.problems().toString());
      long present = present(store);
      assertTrue(present < 200 && present > 150, "present " + present);
    }
  }

  @Test
  void aDeletedCheckpointIsRefusedAndSalvageReportsIt() throws Exception {
    put200(150);
    List<Path> checkpoints = files(".ckp");
    assertEquals(1, checkpoints.size(), checkpoints.toString());
    Files.delete(checkpoints.getFirst());

    LogCorruptedException e = assertThrows(LogCorruptedException.class, () -> open(false));
    assertTrue(e.getMessage().contains("up to sequence 150"), e.getMessage());

    try (TxStore store = open(true)) {
      RecoveryReport report = store.recovery().orElseThrow();
      assertTrue(
          report.problems().toString().contains("up to sequence 150"),
          report.problems().toString());
      assertEquals(50, present(store));
    }
  }

  @Test
  void aDeletedFirstSegmentIsRefused() throws Exception {
    put200(-1);
    Path first = files(".wal").getFirst();
    Files.delete(first);
    LogCorruptedException e = assertThrows(LogCorruptedException.class, () -> open(false));
    assertTrue(e.getMessage().contains(first.getFileName().toString()), e.getMessage());
  }

  @Test
  void aDeletedNewestSegmentIsRefused() throws Exception {
    put200(-1);
    Path newest = files(".wal").getLast();
    Files.delete(newest);
    LogCorruptedException e = assertThrows(LogCorruptedException.class, () -> open(false));
    assertTrue(e.getMessage().contains(newest.getFileName().toString()), e.getMessage());
  }

  /**
   * A store that never rolled nor checkpointed has one segment; with it deleted, the log alone
   * looks new, but the list of caches says a store was opened there.
   */
  @Test
  void aDeletedOnlySegmentIsRefusedAndSalvageReportsIt() throws Exception {
    try (TxStore store =
        TxStore.builder().cache(KEYS).persistence(dir).checkpointEvery(Duration.ZERO).build()) {
      store.cache(KEYS).put("a", "1");
    }
    List<Path> segments = files(".wal");
    assertEquals(1, segments.size(), segments.toString());
    Files.delete(segments.getFirst());

    LogCorruptedException e = assertThrows(LogCorruptedException.class, () -> open(false));
    assertTrue(e.getMessage().contains("every log segment is missing"), e.getMessage());
    assertTrue(e.getMessage().contains(dir.resolve("caches").toString()), e.getMessage());

    try (TxStore store = open(true)) {
      RecoveryReport report = store.recovery().orElseThrow();
      assertTrue(
          report.problems().getFirst().contains("every log segment is missing"),
          report.problems().toString());
      store.cache(KEYS).put("b", "2");
    }
    try (TxStore store = open(false)) {
      assertTrue(
          store.recovery().orElseThrow().problems().isEmpty(),
          store.recovery().orElseThrow().problems().toString());
      assertEquals("2", store.cache(KEYS).get("b"));
    }
  }

  @Test
  void anIntactDirectoryReopensWithEveryKeyAndNoProblem() throws Exception {
    put200(150);
    for (int round = 0; round < 3; round++) {
      try (TxStore store = open(false)) {
        assertTrue(
            store.recovery().orElseThrow().problems().isEmpty(),
            store.recovery().orElseThrow().problems().toString());
        assertEquals(200, present(store));
      }
    }
  }
}
