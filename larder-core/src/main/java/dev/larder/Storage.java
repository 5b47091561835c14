package dev.larder;

/** Where a cache keeps its pages of entries. */
public enum Storage {
  /** Native memory outside the Java heap (the default): no GC cost, counted in the RSS. */
  OFF_HEAP,
  /** Large byte arrays on the Java heap: same layout, no native memory. */
  HEAP
}
