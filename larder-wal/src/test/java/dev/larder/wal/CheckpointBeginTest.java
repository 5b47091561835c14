package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.wal.testing.SimulatedDisk;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link WriteAheadLog#beginCheckpoint} only rolls the log: the checkpoint's temporary file (whose
 * creation forces the directory) is made by its first entry, so that a caller holding its writers
 * up around the begin (the server's exclusive lock, larder-tx's commit lock) holds them for the
 * roll alone; a checkpoint completed without entries, or abandoned before any, still behaves.
 */
@Timeout(60)
class CheckpointBeginTest {

  private static final Path DIR = Path.of("/sim");

  private final SimulatedDisk disk = new SimulatedDisk();
  private final WalConfig config = WalConfig.of(DIR).withFiles(disk);

  private List<String> temporaries() {
    return disk.list(DIR).stream().filter(n -> n.endsWith(".tmp")).toList();
  }

  private void append(WriteAheadLog log, long from, long to) {
    for (long s = from; s <= to; s++) {
      log.sync(log.append(s, 1, LogTesting.payload(s, 100)));
    }
  }

  @Test
  void beginMakesNoFileButTheNextSegment() throws Exception {
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      append(log, 1, 10);
      try (Checkpoint checkpoint = log.beginCheckpoint(10)) {
        assertEquals(List.of(), temporaries(), "begin created the checkpoint's file");
        checkpoint.add(new byte[] {7});
        assertEquals(1, temporaries().size());
        append(log, 11, 12);
        checkpoint.complete();
      }
      assertEquals(List.of(), temporaries());
    }
    LogTesting.Collected recovered = new LogTesting.Collected();
    WriteAheadLog.open(config, recovered).close();
    assertEquals(10, recovered.checkpointSequence);
    assertEquals(1, recovered.entries.size());
    assertArrayEquals(new byte[] {7}, recovered.entries.getFirst());
    assertEquals(List.of(11L, 12L), recovered.sequences);
  }

  @Test
  void aCheckpointWithoutEntriesCompletesAndAnAbandonedOneLeavesNoFile() throws Exception {
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      append(log, 1, 5);
      try (Checkpoint abandoned = log.beginCheckpoint(5)) {
        assertEquals(5, abandoned.sequence());
      }
      assertEquals(List.of(), temporaries());
      append(log, 6, 7);
      try (Checkpoint empty = log.beginCheckpoint(7)) {
        assertEquals(0, empty.complete());
      }
    }
    LogTesting.Collected recovered = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config, recovered)) {
      assertEquals(7, log.recovery().checkpointSequence());
      assertEquals(0, log.recovery().checkpointEntries());
    }
    assertEquals(List.of(), recovered.sequences);
  }
}
