package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A {@link PageRing} does what an {@link ArrayDeque} of the same pages does, step by step. */
class PageRingTest {

  @Test
  void behavesAsAnArrayDeque() {
    SplittableRandom random = new SplittableRandom(5);
    List<Page> pages = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      pages.add(new Page(i, MemorySegment.ofArray(new byte[8])));
    }
    PageRing ring = new PageRing();
    ArrayDeque<Page> deque = new ArrayDeque<>();
    for (int step = 0; step < 100_000; step++) {
      int op = random.nextInt(100);
      // more adds than removals while small, so the ring grows and wraps around
      if (op < (deque.size() < 40 ? 45 : 30)) {
        Page page = pages.get(random.nextInt(pages.size()));
        if (!deque.contains(page)) {
          ring.addLast(page);
          deque.addLast(page);
        }
      } else if (op < 60) {
        assertSame(deque.pollFirst(), ring.pollFirst(), "step " + step);
      } else if (op < 75) {
        assertSame(deque.pollLast(), ring.pollLast(), "step " + step);
      } else if (op < 85) {
        Page page = pages.get(random.nextInt(pages.size()));
        deque.remove(page);
        ring.remove(page);
      } else if (op < 86) {
        deque.clear();
        ring.clear();
      }
      assertEquals(deque.size(), ring.size(), "step " + step);
      assertEquals(deque.isEmpty(), ring.isEmpty());
      assertSame(deque.peekFirst(), ring.peekFirst());
      assertSame(deque.peekLast(), ring.peekLast());
      if (step % 64 == 0) {
        List<Page> inRing = new ArrayList<>();
        ring.forEach(inRing::add);
        assertEquals(new ArrayList<>(deque), inRing, "step " + step);
      }
    }
  }
}
