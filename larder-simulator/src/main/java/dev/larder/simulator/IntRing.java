package dev.larder.simulator;

import java.util.Arrays;

/** A growable FIFO ring of ints (the simulator's queues hold dense key ids). */
final class IntRing {
  private int[] items = new int[64];
  private int head;
  private int size;

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  void add(int item) {
    if (size == items.length) {
      int[] grown = new int[items.length * 2];
      for (int i = 0; i < size; i++) {
        grown[i] = items[(head + i) & (items.length - 1)];
      }
      items = grown;
      head = 0;
    }
    items[(head + size) & (items.length - 1)] = item;
    size++;
  }

  int peek() {
    return items[head];
  }

  int poll() {
    int item = items[head];
    head = (head + 1) & (items.length - 1);
    size--;
    return item;
  }

  void clear() {
    Arrays.fill(items, 0);
    head = 0;
    size = 0;
  }
}
