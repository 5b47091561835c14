package dev.larder.bench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class MemoryParsingTest {

  private static final String STATUS =
      "Name:\tjava\nVmPeak:\t 9000 kB\nVmRSS:\t  123456 kB\nRssAnon:\t 100000 kB\nThreads:\t27\n";

  @Test
  void readsVmRssInBytes() {
    assertEquals(OptionalLong.of(123_456L * 1024), ProcStatus.field(STATUS, "VmRSS"));
  }

  @Test
  void fieldNamesMatchWholeNames() {
    assertEquals(OptionalLong.of(100_000L * 1024), ProcStatus.field(STATUS, "RssAnon"));
    assertEquals(OptionalLong.empty(), ProcStatus.field(STATUS, "Rss"));
  }

  @Test
  void unitlessFieldsAreReturnedAsIsAndGarbageIsEmpty() {
    assertEquals(OptionalLong.of(27), ProcStatus.field(STATUS, "Threads"));
    assertEquals(OptionalLong.empty(), ProcStatus.field("VmRSS:\tlots kB\n", "VmRSS"));
    assertEquals(OptionalLong.empty(), ProcStatus.field("VmRSS:\t5 MB\n", "VmRSS"));
  }

  @Test
  void thisProcessHasAResidentSetOnLinux() {
    if (System.getProperty("os.name").startsWith("Linux")) {
      assertTrue(ProcStatus.residentBytes().orElseThrow() > 1 << 20);
    }
  }

  @Test
  void parsesTheNmtTotalLine() {
    String summary =
        """
        Native Memory Tracking:

        (Omitting categories weighting less than 1KB)

        Total: reserved=2671032KB, committed=1150876KB
               malloc: 22154KB #41325
               mmap:   reserved=2648878KB, committed=1128722KB

        -                 Java Heap (reserved=1048576KB, committed=1048576KB)
        """;
    assertEquals(
        OptionalLong.of(1_150_876L * 1024), NativeMemoryTracking.parseTotalCommitted(summary));
    assertEquals(
        OptionalLong.empty(),
        NativeMemoryTracking.parseTotalCommitted("Native memory tracking is not enabled"));
  }

  @Test
  void snapshotDeltas() {
    MemorySnapshot before = new MemorySnapshot(100, 1_000, 500, true, 2);
    MemorySnapshot after = new MemorySnapshot(300, 1_700, -1, true, 3);
    assertEquals(200, after.heapDelta(before));
    assertEquals(700, after.nativeDelta(before));
    assertEquals(-1, after.nmtDelta(before));
  }
}
