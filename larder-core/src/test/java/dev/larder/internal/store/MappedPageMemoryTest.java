package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Off-heap page memory (issue 27, item 2): freed pages are reused without an arena closed per
 * page, stay readable for a reader still holding them, and the segment's close unmaps them all
 * at once.
 */
class MappedPageMemoryTest {

  private static final int MIB = 1 << 20;
  private static final int STANDARD = 64 * 1024;

  @BeforeEach
  void linuxWithNativeAccess() {
    assumeTrue(NativeMemory.available(), "needs Linux and native access");
  }

  @Test
  void freedPageStaysReadable() {
    MappedPageMemory memory = new MappedPageMemory();
    MemorySegment page = memory.allocate(MIB);
    page.fill((byte) 7);
    memory.free(page);
    // A reader that still holds the freed page reads it, and no fault.
    page.get(ValueLayout.JAVA_LONG, MIB - 8);
    memory.close();
  }

  @Test
  void mappingsAreReusedBySize() {
    MappedPageMemory memory = new MappedPageMemory();
    MemorySegment first = memory.allocate(300_000);
    memory.free(first);
    MemorySegment second = memory.allocate(400_000);
    assertEquals(first.address(), second.address(), "same class (512 KiB): same mapping");
    MemorySegment other = memory.allocate(600_000);
    assertTrue(other.address() != first.address());
    assertEquals(2 * 2, memory.mappings().length);
    memory.close();
  }

  @Test
  void closeUnmapsEverythingAndReadersGetIllegalState() {
    MappedPageMemory memory = new MappedPageMemory();
    MemorySegment live = memory.allocate(64 * 1024);
    MemorySegment freed = memory.allocate(3 * MIB);
    live.fill((byte) 1);
    memory.free(freed);
    long[] mappings = memory.mappings();
    memory.close();
    for (int i = 0; i < mappings.length; i += 2) {
      assertEquals(-1, Residency.residentBytes(mappings[i], mappings[i + 1]), "unmapped");
    }
    assertThrows(IllegalStateException.class, () -> live.get(ValueLayout.JAVA_BYTE, 0));
    assertThrows(IllegalStateException.class, () -> memory.allocate(4096));
  }
}
