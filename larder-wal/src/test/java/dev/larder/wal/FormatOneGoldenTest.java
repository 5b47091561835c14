package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log written in format 1 (segment header of 16 bytes, no footers) is read by this version, and
 * continues in format 2. The files under {@code golden/wal-format-1} were written by the format-1
 * log (commit a7408b9) with 4 KiB segments: records 1-40 (type 1, 100-byte {@link
 * LogTesting#payload payloads}), a checkpoint at 40 holding the entries "entry-1" and "entry-2"
 * begun while records 41-100 were appended, then a reopen and records 101-110 (type 2). Segments 1
 * and 2 were deleted by the checkpoint; 3 and 4 hold 41-100, 5 holds 101-110.
 */
@Timeout(60)
class FormatOneGoldenTest {

  @TempDir Path dir;

  @BeforeEach
  void copyGoldenFiles() throws Exception {
    Path golden = Path.of(FormatOneGoldenTest.class.getResource("/golden/wal-format-1").toURI());
    try (Stream<Path> files = Files.list(golden)) {
      for (Path f : files.toList()) {
        Files.copy(f, dir.resolve(f.getFileName()));
      }
    }
  }

  private WalConfig config() {
    return WalConfig.of(dir).withSegmentBytes(4096);
  }

  @Test
  void formatOneIsReadAndTheLogContinuesInFormatTwo() throws Exception {
    LogTesting.Collected c = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config(), c)) {
      assertGolden(c, log);
      for (long s = 111; s <= 120; s++) {
        log.sync(log.append(s, 1, LogTesting.payload(s, 100)));
      }
    }
    byte[] newest = Files.readAllBytes(dir.resolve("log-0000000000000006.wal"));
    assertEquals(2, java.nio.ByteBuffer.wrap(newest).getInt(8), "new segments are format 2");
    LogTesting.Collected again = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config(), again)) {
      assertTrue(log.recovery().problems().isEmpty(), log.recovery().problems().toString());
      assertEquals(80, again.sequences.size());
      assertEquals(120, again.sequences.getLast());
    }
  }

  /** Format 1 does not say where a segment begins, but a gap in the numbering still shows. */
  @Test
  void aMissingFormatOneSegmentIsRefused() throws Exception {
    Files.delete(dir.resolve("log-0000000000000004.wal"));
    LogGapException e =
        assertThrows(
            LogGapException.class,
            () -> WriteAheadLog.open(config(), new LogTesting.Collected()).close());
    assertTrue(e.getMessage().contains("log-0000000000000004.wal"), e.getMessage());
    assertEquals("log-0000000000000004.wal", e.file());
  }

  private static void assertGolden(LogTesting.Collected c, WriteAheadLog log) {
    assertTrue(log.recovery().problems().isEmpty(), log.recovery().problems().toString());
    assertEquals(40, log.recovery().checkpointSequence());
    assertEquals(
        List.of("entry-1", "entry-2"),
        c.entries.stream().map(e -> new String(e, StandardCharsets.UTF_8)).toList());
    assertEquals(70, c.sequences.size());
    for (int i = 0; i < 70; i++) {
      long s = 41L + i;
      assertEquals(s, c.sequences.get(i));
      assertArrayEquals(LogTesting.payload(s, 100), c.payloads.get(i));
      assertEquals(s <= 100 ? 1 : 2, c.types.get(i));
    }
    assertEquals(110, log.recovery().lastSequence());
  }
}
