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
 * Off-heap page memory is given back to the system when pages are freed and when the segment closes
 * (the resident set once grew to 1.7x the bound and did not shrink after close), while a reader
 * holding a freed page, or a page of a closed segment, can still read it without faulting; mappings
 * are unmapped only once no page of theirs is reachable.
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
  void closeGivesMemoryBackInTheBackgroundAndLeavesHeldPagesReadable() throws InterruptedException {
    MappedPageMemory memory = new MappedPageMemory();
    MemorySegment live = memory.allocate(64 * 1024);
    MemorySegment freed = memory.allocate(3 * MIB);
    live.fill((byte) 1);
    memory.free(freed);
    long[] mappings = memory.mappings();
    memory.close();
    awaitDiscard(memory);
    for (int i = 0; i < mappings.length; i += 2) {
      assertEquals(0, Residency.residentBytes(mappings[i], mappings[i + 1]), "mapped, empty");
    }
    // A reader that raced close still holds the page: zeros, not a fault.
    assertEquals(0, live.get(ValueLayout.JAVA_BYTE, 0));
    assertEquals(0, freed.get(ValueLayout.JAVA_BYTE, 3 * MIB - 1));
    assertThrows(IllegalStateException.class, () -> memory.allocate(4096));
    assertEquals(0, memory.mappings().length, "a closed memory holds no address");
  }

  @Test
  void mappingsAreUnmappedOnceNoPageIsReachable() throws InterruptedException {
    long[] mappings = closedMemoryWithPages(null);
    awaitUnmapped(mappings);
  }

  @Test
  void aHeldPageKeepsEveryMappingOfItsSegmentMapped() throws InterruptedException {
    MemorySegment[] held = new MemorySegment[1];
    long[] mappings = closedMemoryWithPages(held);
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
    }
    for (int i = 0; i < mappings.length; i += 2) {
      assertTrue(Residency.residentBytes(mappings[i], mappings[i + 1]) >= 0, "still mapped");
    }
    assertEquals(0, held[0].get(ValueLayout.JAVA_BYTE, 0));
    held[0] = null;
    awaitUnmapped(mappings);
  }

  /**
   * Makes a memory with pages of a small and a large class, closes it and drops it.
   *
   * @param holder where to keep the first page, or null to keep nothing
   * @return its mappings, in pairs
   */
  private static long[] closedMemoryWithPages(MemorySegment[] holder) {
    MappedPageMemory memory = new MappedPageMemory();
    MemorySegment small = memory.allocate(STANDARD);
    memory.allocate(3 * MIB).fill((byte) 2);
    small.fill((byte) 1);
    long[] mappings = memory.mappings();
    assertEquals(2 * 2, mappings.length);
    memory.close();
    if (holder != null) {
      holder[0] = small;
    }
    return mappings;
  }

  /** Collects until every mapping is unmapped; fails after 20 s. */
  private static void awaitUnmapped(long[] mappings) throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!allUnmapped(mappings)) {
      assertTrue(
          System.nanoTime() < deadline,
          "mappings still mapped 20 s after the last page" + " became unreachable");
      System.gc();
      Thread.sleep(20);
    }
  }

  private static boolean allUnmapped(long[] mappings) {
    for (int i = 0; i < mappings.length; i += 2) {
      if (Residency.residentBytes(mappings[i], mappings[i + 1]) != -1) {
        return false;
      }
    }
    return true;
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
  void emptyingGivesEverythingBackAndReusesTheSlabs() throws InterruptedException {
    MappedPageMemory memory = new MappedPageMemory();
    PageStore store = new PageStore(memory, STANDARD);
    for (int i = 0; i < 100; i++) {
      store.allocate(i % 10 == 0 ? 3 * MIB : STANDARD).memory.fill((byte) 1);
    }
    long[] mappings = memory.mappings();
    store.releaseAll();
    assertEquals(0, store.reservedBytes());
    awaitDiscard(memory);
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
  void theFirstAllocationAfterEmptyingReusesOnlyDiscardedMemory() {
    for (int round = 0; round < 20; round++) {
      MappedPageMemory memory = new MappedPageMemory();
      PageStore store = new PageStore(memory, STANDARD);
      for (int i = 0; i < 64; i++) {
        store.allocate(STANDARD).memory.fill((byte) 1);
      }
      store.releaseAll();
      // However far the background discard has got, nothing is resident once the next page
      // is handed out, and that page reads zeros.
      MemorySegment reused = store.allocate(STANDARD).memory;
      assertTrue(memory.pendingDiscard() == null, "the allocation ran or awaited the discard");
      long[] mappings = memory.mappings();
      for (int i = 0; i < mappings.length; i += 2) {
        assertEquals(0, Residency.residentBytes(mappings[i], mappings[i + 1]));
      }
      assertEquals(-1, reused.mismatch(MemorySegment.ofArray(new byte[STANDARD])));
      store.close();
    }
  }

  /** Waits for the background discard of the last emptying or close; fails after 20 s. */
  private static void awaitDiscard(MappedPageMemory memory) throws InterruptedException {
    MappingDiscard discard = memory.pendingDiscard();
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (discard != null && !discard.isDone()) {
      assertTrue(System.nanoTime() < deadline, "the background discard did not run in 20 s");
      Thread.sleep(5);
    }
  }
}
