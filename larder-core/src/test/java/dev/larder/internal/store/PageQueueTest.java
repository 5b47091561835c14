package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** The spare page: the end of the page behind the head takes entries that fit it. */
class PageQueueTest {

  private int pageNumber;

  private Page page(int capacity) {
    return new Page(pageNumber++, MemorySegment.ofArray(new byte[capacity]));
  }

  /** Appends as the segment does: into the room the queue offers, else onto a new page. */
  private Page append(PageQueue queue, int bytes, int pageSize) {
    Page room = queue.roomFor(bytes);
    if (room == null) {
      room = page(Math.max(pageSize, bytes));
      queue.appendPage(room);
    }
    queue.claim(room, bytes);
    return room;
  }

  private static void assertFlowInQueueOrder(PageQueue queue) {
    long end = Long.MIN_VALUE;
    for (Page page : queue.pages()) {
      assertTrue(page.flowStart >= end, "page starts at " + page.flowStart + " before " + end);
      end = page.flowStart + page.used;
    }
  }

  @Test
  void theEndLeftByALargeEntryTakesLaterSmallerOnes() {
    PageQueue queue = new PageQueue("test");
    Page first = append(queue, 600, 1000);
    Page second = append(queue, 600, 1000);
    Page third = append(queue, 700, 1000); // leaves 400 bytes at the end of the second page
    assertEquals(3, queue.pageCount());
    assertSame(second, queue.spare());
    long headStart = third.flowStart;

    assertSame(second, append(queue, 300, 1000), "fits the spare's end");
    assertEquals(900, second.used);
    assertEquals(headStart + 300, third.flowStart, "the head moves up in the flow");
    assertSame(third, append(queue, 200, 1000), "no longer fits the spare: the head");
    assertSame(second, append(queue, 100, 1000));
    assertEquals(1000, second.used);
    assertNotSame(first, queue.spare());
    assertFlowInQueueOrder(queue);
  }

  @Test
  void theTailPageIsNeverASpare() {
    PageQueue queue = new PageQueue("test");
    Page first = append(queue, 600, 1000);
    Page second = append(queue, 600, 1000); // the first page, the tail, keeps its end
    assertNull(queue.spare());
    assertSame(second, append(queue, 100, 1000));
    Page third = append(queue, 600, 1000);
    assertSame(second, queue.spare());
    queue.tailOffset = first.used;
    queue.removeTail();
    assertSame(second, queue.tail());
    assertNull(queue.spare(), "the spare became the tail");
    assertSame(third, append(queue, 100, 1000));
    assertFlowInQueueOrder(queue);
  }

  @Test
  void theSpareIsDroppedWhenItsPageLeavesOrAPageComesBetween() {
    PageQueue queue = new PageQueue("test");
    append(queue, 600, 1000);
    Page second = append(queue, 600, 1000);
    append(queue, 600, 1000);
    assertSame(second, queue.spare());
    queue.remove(second);
    assertNull(queue.spare());

    append(queue, 600, 1000);
    assertTrue(queue.spare() != null);
    Page spliced = page(1000);
    spliced.used = 1000;
    queue.insertBeforeHead(spliced);
    assertNull(queue.spare(), "the spare is no longer next to the head");
    assertFlowInQueueOrder(queue);

    append(queue, 600, 1000);
    assertTrue(queue.spare() != null);
    queue.clear();
    assertNull(queue.spare());
  }
}
