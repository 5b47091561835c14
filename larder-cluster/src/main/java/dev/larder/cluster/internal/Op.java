package dev.larder.cluster.internal;

/** The writes a primary executes; each returns the previous value or a boolean. */
enum Op {
  PUT,
  PUT_IF_ABSENT,
  REPLACE,
  REPLACE_IF,
  REMOVE,
  REMOVE_IF;

  private static final Op[] VALUES = values();

  static Op of(int ordinal) {
    if (ordinal < 0 || ordinal >= VALUES.length) {
      throw new IllegalArgumentException("unknown write op " + ordinal);
    }
    return VALUES[ordinal];
  }

  /** Returns true if the result depends on the current value (so it must be known). */
  boolean readsCurrent() {
    return this != PUT && this != REMOVE;
  }

  /** Returns true if the op returns a boolean rather than the previous value. */
  boolean conditional() {
    return this == REPLACE_IF || this == REMOVE_IF;
  }
}
