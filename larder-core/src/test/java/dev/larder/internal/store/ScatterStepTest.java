package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The stride of a segment's key snapshot visits every slot of an index of any length once. */
class ScatterStepTest {

  @Test
  void visitsEverySlotOnce() {
    for (int capacity = 1; capacity < 3_000; capacity++) {
      int step = Segment.scatterStep(capacity);
      assertTrue(step >= 1 && step <= capacity, "capacity " + capacity + ": step " + step);
      boolean[] visited = new boolean[capacity];
      for (int n = 0, i = 0; n < capacity; n++) {
        assertFalse(visited[i], "capacity " + capacity + ": slot " + i + " twice");
        visited[i] = true;
        i = (i + step) % capacity;
      }
    }
  }
}
