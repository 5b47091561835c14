package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.testing.SimulatedDisk;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A segment or checkpoint file removed from a closed log (by an operator, a backup restored in
 * part, a clean-up script): recovery must refuse to open, naming what is missing and the records
 * lost, and salvage must open reporting the same; never an open that silently lacks records.
 */
@Timeout(60)
class MissingLogFileTest {

  private static final Path DIR = Path.of("/sim");

  private final SimulatedDisk disk = new SimulatedDisk();
  private final WalConfig config = WalConfig.of(DIR).withFiles(disk).withSegmentBytes(4096);

  /** Writes records 1..200 of 100-byte payloads (about 32 to a segment) and closes the log. */
  private void write200(long checkpointAfter) throws Exception {
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      for (long s = 1; s <= 200; s++) {
        log.sync(log.append(s, 1, LogTesting.payload(s, 100)));
        if (s == checkpointAfter) {
          try (Checkpoint checkpoint = log.beginCheckpoint(s)) {
            checkpoint.add(new byte[] {7});
            checkpoint.complete();
          }
        }
      }
    }
  }

  private List<String> segments() {
    return disk.list(DIR).stream().filter(n -> n.endsWith(".wal")).toList();
  }

  private void delete(String name) {
    disk.delete(DIR.resolve(name));
  }

  private LogGapException refused() {
    LogGapException e =
        assertThrows(
            LogGapException.class,
            () -> WriteAheadLog.open(config, new LogTesting.Collected()).close());
    return e;
  }

  @Test
  void aMissingMiddleSegmentIsRefusedNamingItAndTheRecordsLost() throws Exception {
    write200(-1);
    List<String> segments = segments();
    assertTrue(segments.size() >= 5, segments.toString());
    String middle = segments.get(segments.size() / 2);
    long[] range = sequencesIn(middle);
    delete(middle);

    LogGapException e = refused();
    assertEquals(middle, e.file());
    assertTrue(e.getMessage().contains(middle), e.getMessage());
    assertTrue(
        e.getMessage().contains("after sequence " + (range[0] - 1) + " up to sequence " + range[1]),
        e.getMessage());

    LogTesting.Collected salvaged = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config.withSalvage(true), salvaged)) {
      assertEquals(200 - (range[1] - range[0] + 1), salvaged.sequences.size());
      assertFalse(salvaged.sequences.contains(range[0]));
      assertTrue(salvaged.sequences.contains(range[1] + 1));
      assertTrue(log.recovery().lostAnything());
      assertTrue(
          log.recovery().problems().toString().contains(middle),
          log.recovery().problems().toString());
    }
  }

  @Test
  void aMissingCheckpointWhoseLogWasDroppedIsRefused() throws Exception {
    write200(150);
    String checkpoint =
        disk.list(DIR).stream().filter(n -> n.endsWith(".ckp")).findFirst().orElseThrow();
    delete(checkpoint);

    LogGapException e = refused();
    assertTrue(e.getMessage().contains("up to sequence 150"), e.getMessage());
    assertTrue(e.getMessage().contains("checkpoint"), e.getMessage());
    assertEquals("log-0000000000000001.wal", e.file());

    LogTesting.Collected salvaged = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config.withSalvage(true), salvaged)) {
      assertEquals(50, salvaged.sequences.size());
      assertEquals(151, salvaged.sequences.getFirst());
      assertTrue(
          log.recovery().problems().toString().contains("up to sequence 150"),
          log.recovery().problems().toString());
    }
  }

  @Test
  void aMissingFirstSegmentIsRefused() throws Exception {
    write200(-1);
    String first = segments().getFirst();
    long[] range = sequencesIn(first);
    delete(first);

    LogGapException e = refused();
    assertEquals(first, e.file());
    assertTrue(e.getMessage().contains(first), e.getMessage());
    assertTrue(e.getMessage().contains("up to sequence " + range[1]), e.getMessage());
  }

  @Test
  void aMissingNewestSegmentIsRefused() throws Exception {
    write200(-1);
    String newest = segments().getLast();
    long[] range = sequencesIn(newest);
    assertEquals(200, range[1]);
    delete(newest);

    LogGapException e = refused();
    assertEquals(newest, e.file());
    assertTrue(e.getMessage().contains("after sequence " + (range[0] - 1)), e.getMessage());

    try (WriteAheadLog log =
        WriteAheadLog.open(config.withSalvage(true), new LogTesting.Collected())) {
      assertTrue(
          log.recovery().problems().toString().contains(newest),
          log.recovery().problems().toString());
      assertEquals(range[0] - 1, log.recovery().lastSequence());
    }
  }

  /** The newest segment is the one the last open started; the one before it was not rolled. */
  @Test
  void aMissingNewestSegmentStartedByAnOpenIsRefused() throws Exception {
    write200(-1);
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      log.sync(log.append(201, 1, LogTesting.payload(201, 100)));
    }
    String newest = segments().getLast();
    assertEquals(201, sequencesIn(newest)[0]);
    delete(newest);

    LogGapException e = refused();
    assertEquals(newest, e.file());
    assertTrue(e.getMessage().contains("after sequence 200"), e.getMessage());
  }

  @Test
  void everySegmentMissingUnderACheckpointIsRefused() throws Exception {
    write200(150);
    segments().forEach(this::delete);

    LogGapException e = refused();
    assertTrue(e.getMessage().contains("every log segment is missing"), e.getMessage());
    assertTrue(e.getMessage().contains("after sequence 150"), e.getMessage());
  }

  /** A segment that held no record (a log opened and closed) is missing: said, not refused. */
  @Test
  void aMissingSegmentThatHeldNothingIsReportedNotRefused() throws Exception {
    write200(-1);
    WriteAheadLog.open(config, new LogTesting.Collected()).close(); // an empty segment
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      log.sync(log.append(201, 1, LogTesting.payload(201, 100)));
    }
    List<String> segments = segments();
    String empty = segments.get(segments.size() - 2);
    delete(empty);
    LogTesting.Collected c = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config, c)) {
      assertEquals(201, c.sequences.size());
      assertEquals(1, log.recovery().problems().size(), log.recovery().problems().toString());
      assertTrue(
          log.recovery().problems().getFirst().contains(empty + " is missing"),
          log.recovery().problems().toString());
      assertTrue(
          log.recovery().problems().getFirst().contains("no record lost"),
          log.recovery().problems().toString());
    }
  }

  /** A footer is forced with its segment: damage to it is damage, refused naming it. */
  @Test
  void aDamagedFooterIsRefusedAsDamageAndSalvagedWithoutLoss() throws Exception {
    write200(-1);
    String segment = segments().get(2);
    Path path = DIR.resolve(segment);
    byte[] bytes = disk.content(path);
    int footer = bytes.length - 24;
    bytes[footer + 12] ^= 1;
    disk.replace(path, bytes);

    LogCorruptedException e =
        assertThrows(
            LogCorruptedException.class,
            () -> WriteAheadLog.open(config, new LogTesting.Collected()).close());
    assertEquals(segment, e.file());
    assertEquals(footer, e.offset());

    LogTesting.Collected c = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config.withSalvage(true), c)) {
      assertEquals(200, c.sequences.size());
      assertEquals(1, log.recovery().problems().size(), log.recovery().problems().toString());
    }
  }

  /** A finished segment cut short at a record boundary (its footer and last records gone). */
  @Test
  void aSegmentCutShortIsRefusedNamingIt() throws Exception {
    write200(-1);
    String segment = segments().get(1);
    long[] range = sequencesIn(segment);
    Path path = DIR.resolve(segment);
    byte[] bytes = disk.content(path);
    // Drop the footer and the last two records (125 bytes each: 100-byte payloads).
    disk.replace(path, java.util.Arrays.copyOf(bytes, bytes.length - 24 - 2 * 125));

    LogGapException e = refused();
    assertEquals(segment, e.file());
    assertTrue(e.getMessage().contains("the end of " + segment + " is missing"), e.getMessage());
    assertTrue(
        e.getMessage().contains("after sequence " + (range[1] - 2) + " up to sequence " + range[1]),
        e.getMessage());
  }

  /** Reopening, checkpointing and rolling as a store does never trips the checks. */
  @Test
  void aLogOpenedAndCheckpointedManyTimesOpensWithoutProblems() throws Exception {
    long s = 0;
    for (int round = 0; round < 6; round++) {
      LogTesting.Collected c = new LogTesting.Collected();
      try (WriteAheadLog log = WriteAheadLog.open(config, c)) {
        assertTrue(log.recovery().problems().isEmpty(), log.recovery().problems().toString());
        assertEquals(s, log.recovery().lastSequence());
        for (int i = 0; i < 40 * round; i++) {
          s++;
          log.sync(log.append(s, 1, LogTesting.payload(s, 100)));
        }
        if (round % 2 == 1) {
          try (Checkpoint checkpoint = log.beginCheckpoint(s)) {
            checkpoint.complete();
          }
        }
      }
    }
  }

  /** Returns the first and last sequence of the records in a segment, from a clean replay. */
  private long[] sequencesIn(String segment) throws Exception {
    SimulatedDisk copy = disk.copy();
    // Replay everything; the records whose payload bytes are in the segment's file are its own.
    LogTesting.Collected all = new LogTesting.Collected();
    WriteAheadLog.open(config.withFiles(copy), all).close();
    byte[] content = copy.content(DIR.resolve(segment));
    long first = Long.MAX_VALUE;
    long last = 0;
    for (int i = 0; i < all.payloads.size(); i++) {
      if (contains(content, all.payloads.get(i))) {
        first = Math.min(first, all.sequences.get(i));
        last = Math.max(last, all.sequences.get(i));
      }
    }
    assertTrue(last > 0, segment + " holds no records");
    return new long[] {first, last};
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
