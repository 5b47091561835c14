package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.larder.wal.internal.RecordLayout;
import dev.larder.wal.internal.SegmentHeader;
import dev.larder.wal.testing.SimulatedDisk;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Cuts the log at every byte of its last records, and flips random bits in it. */
@Timeout(120)
class RecoveryDamageTest {

  private static final Path DIR = Path.of("/sim");
  private static final int RECORDS = 40;

  private SimulatedDisk disk;
  private Path segment;
  private byte[] content;
  private final List<Integer> starts = new ArrayList<>();

  @BeforeEach
  void writeLog() throws Exception {
    disk = new SimulatedDisk();
    try (WriteAheadLog log = WriteAheadLog.open(config(disk), new LogTesting.Collected())) {
      for (long s = 1; s <= RECORDS; s++) {
        log.sync(log.append(s, 1, LogTesting.payload(s, 20 + (int) s)));
      }
    }
    segment =
        DIR.resolve(
            disk.list(DIR).stream().filter(n -> n.endsWith(".wal")).findFirst().orElseThrow());
    content = disk.content(segment);
    int p = SegmentHeader.BYTES;
    while (p < content.length) {
      starts.add(p);
      p += RecordLayout.size(20 + starts.size());
    }
    assertEquals(RECORDS, starts.size());
    assertEquals(content.length, p);
  }

  private static WalConfig config(SimulatedDisk d) {
    return WalConfig.of(DIR).withFiles(d);
  }

  @Test
  void cutAtEveryByteOfTheLastRecordsKeepsExactlyTheWholeOnes() throws Exception {
    for (int cut = starts.get(RECORDS - 4); cut <= content.length; cut++) {
      SimulatedDisk d = new SimulatedDisk();
      d.replace(segment, Arrays.copyOf(content, cut));
      int whole = 0;
      while (whole < RECORDS && starts.get(whole) + RecordLayout.size(20 + whole + 1) <= cut) {
        whole++;
      }
      boolean boundary = cut == content.length || starts.contains(cut);
      LogTesting.Collected c = new LogTesting.Collected();
      try (WriteAheadLog log = WriteAheadLog.open(config(d), c)) {
        assertEquals(whole, c.sequences.size(), "cut at " + cut);
        assertPrefix(c);
        assertEquals(!boundary, log.recovery().lostAnything(), "cut at " + cut);
        if (!boundary) {
          assertTrue(log.recovery().problems().getFirst().contains("torn tail"));
        }
        log.sync(log.append(whole + 1, 1, LogTesting.payload(whole + 1, 5)));
      }
      LogTesting.Collected again = new LogTesting.Collected();
      try (WriteAheadLog log = WriteAheadLog.open(config(d), again)) {
        assertEquals(whole + 1, again.sequences.size(), "reopen after cut at " + cut);
        assertFalse(log.recovery().lostAnything(), log.recovery().problems().toString());
      }
    }
  }

  @Test
  void bitFlipsFailNamingFileAndOffsetOrCutTheUnprovenTailOrAreSalvaged() throws Exception {
    Random random = new Random(22);
    for (int trial = 0; trial < 300; trial++) {
      int at = random.nextInt(content.length);
      byte[] damaged = content.clone();
      damaged[at] ^= (byte) (1 << random.nextInt(8));
      int record = recordAt(at);
      SimulatedDisk d = new SimulatedDisk();
      d.replace(segment, damaged);
      LogTesting.Collected c = new LogTesting.Collected();
      try (WriteAheadLog log = WriteAheadLog.open(config(d), c)) {
        // Only damage to the last record can pass for a torn tail: every later record says the
        // earlier ones were forced.
        assertEquals(RECORDS - 1, record, "flip at " + at + " recovered without error");
        assertEquals(RECORDS - 1, c.sequences.size());
        assertPrefix(c);
        assertTrue(log.recovery().lostAnything());
      } catch (LogCorruptedException e) {
        assertEquals(segment.getFileName().toString(), e.file());
        assertEquals(record < 0 ? 0 : starts.get(record), e.offset(), "flip at " + at);
      }
      LogTesting.Collected salvaged = new LogTesting.Collected();
      if (record >= 0) {
        SimulatedDisk fresh = new SimulatedDisk();
        fresh.replace(segment, damaged);
        try (WriteAheadLog log = WriteAheadLog.open(config(fresh).withSalvage(true), salvaged)) {
          assertTrue(log.recovery().lostAnything());
          assertFalse(salvaged.sequences.contains((long) record + 1), "damaged record replayed");
          for (int i = 0; i < salvaged.sequences.size(); i++) {
            long s = salvaged.sequences.get(i);
            assertArrayEquals(LogTesting.payload(s, 20 + (int) s), salvaged.payloads.get(i));
          }
          assertEquals(RECORDS - 1, salvaged.sequences.size(), "flip at " + at);
        } catch (LogCorruptedException e) {
          fail("salvage refused a flip at " + at + ": " + e.getMessage());
        }
      }
    }
  }

  /** Returns the index of the record holding byte {@code at}, or -1 in the header. */
  private int recordAt(int at) {
    int r = -1;
    for (int i = 0; i < starts.size(); i++) {
      if (starts.get(i) <= at) {
        r = i;
      }
    }
    return r;
  }

  private static void assertPrefix(LogTesting.Collected c) {
    for (int i = 0; i < c.sequences.size(); i++) {
      assertEquals(i + 1, c.sequences.get(i));
      assertArrayEquals(LogTesting.payload(i + 1, 20 + i + 1), c.payloads.get(i));
    }
  }
}
