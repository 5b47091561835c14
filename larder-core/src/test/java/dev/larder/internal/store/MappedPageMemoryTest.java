package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Off-heap page memory is given back to the system when pages are freed and when the segment
 * closes (issue 27, item 3: the resident set grew to 1.7x the bound and did not shrink after
 * close), while a reader holding a freed page can still read it without faulting (item 2).
 */
class MappedPageMemoryTest {

  private static final int MIB = 1 << 20;
  private static final int STANDARD = 64 * 1024;

  @BeforeEach
  void linuxWithNativeAccess() {
    assumeTrue(NativeMemory.available(), "needs Linux and native access");
  }

  @Test
  void freedPageGivesItsMemoryBackAndStaysReadable() {
    MappedPageMemory memory = new MappedPageMemory();
    MemorySegment page = memory.allocate(MIB);
    page.fill((byte) 7);
    assertEquals(MIB, Residency.residentBytes(page.address(), MIB));
    memory.free(page);
    assertEquals(0, Residency.residentBytes(page.address(), MIB));
    // A reader that still holds the freed page reads zeros, not a fault.
    assertEquals(0, page.get(ValueLayout.JAVA_LONG, MIB - 8));
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

  @Test
  void residentMemoryFollowsReservedBytesUnderChurn() {
    MappedPageMemory memory = new MappedPageMemory();
    PageStore store = new PageStore(memory, STANDARD);
    SplittableRandom random = new SplittableRandom(1);
    Page[] live = new Page[24];
    for (int i = 0; i < 2_000; i++) {
      int slot = random.nextInt(live.length);
      if (live[slot] != null) {
        store.recycle(live[slot]);
      }
      int capacity = random.nextBoolean() ? STANDARD : STANDARD + 1 + random.nextInt(2 * MIB);
      Page page = capacity == STANDARD ? store.takePooled() : null;
      live[slot] = page != null ? page : store.allocate(capacity);
      live[slot].memory.fill((byte) i);
    }
    long resident = 0;
    long[] mappings = memory.mappings();
    for (int i = 0; i < mappings.length; i += 2) {
      resident += Residency.residentBytes(mappings[i], mappings[i + 1]);
    }
    // Live and pooled pages (standard, and the last over-size ones) are resident, in whole
    // system pages; the other freed over-size pages went back.
    long expected = (long) store.pooledCount() * STANDARD;
    List<Page> held = new ArrayList<>(Arrays.asList(live));
    held.addAll(store.pooledLargePages());
    assertEquals(PageStore.LARGE_POOL, store.pooledLargePages().size());
    for (Page page : held) {
      expected += NativeMemory.roundUp(page.capacity);
    }
    assertEquals(expected, resident);
    store.close();
  }

  @Test
  void emptyingGivesEverythingBackAndReusesTheSlabs() {
    MappedPageMemory memory = new MappedPageMemory();
    PageStore store = new PageStore(memory, STANDARD);
    for (int i = 0; i < 100; i++) {
      store.allocate(i % 10 == 0 ? 3 * MIB : STANDARD).memory.fill((byte) 1);
    }
    long[] mappings = memory.mappings();
    store.releaseAll();
    assertEquals(0, store.reservedBytes());
    for (int i = 0; i < mappings.length; i += 2) {
      assertEquals(0, Residency.residentBytes(mappings[i], mappings[i + 1]));
    }
    for (int i = 0; i < 100; i++) {
      store.allocate(i % 10 == 0 ? 3 * MIB : STANDARD);
    }
    assertEquals(mappings.length, memory.mappings().length, "the same slabs and mappings");
    store.close();
  }

  @Test
  void segmentsOfOneCacheShareOneArenaClosedByTheLast() {
    PageScope scope = new PageScope(2);
    MappedPageMemory first = new MappedPageMemory(scope);
    MappedPageMemory second = new MappedPageMemory(scope);
    MemorySegment a = first.allocate(4096);
    MemorySegment b = second.allocate(4096);
    long[] mappings = first.mappings();
    first.close();
    // Still mapped and readable: a racing reader of the first segment must not fault.
    assertEquals(0, a.get(ValueLayout.JAVA_BYTE, 0));
    assertEquals(4096, Residency.residentBytes(mappings[0], mappings[1]));
    second.close();
    assertThrows(IllegalStateException.class, () -> a.get(ValueLayout.JAVA_BYTE, 0));
    assertThrows(IllegalStateException.class, () -> b.get(ValueLayout.JAVA_BYTE, 0));
    assertEquals(-1, Residency.residentBytes(mappings[0], mappings[1]), "unmapped");
  }
}
