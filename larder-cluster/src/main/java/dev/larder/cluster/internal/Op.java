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

  /**
   * Returns this op's code in a write frame: its position in this declaration, so a new op goes at
   * the end (docs/spec/cluster-wire.md numbers the write ops so).
   */
  @SuppressWarnings("EnumOrdinal") // the declaration order is the wire code, on purpose
  int code() {
    return ordinal();
  }

  /** Returns the op with the given {@link #code()}; throws IllegalArgumentException if none. */
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
