package dev.larder.server.internal;

/**
 * The classes of keyspace notification that {@code notify-keyspace-events} selects, as Redis 7.0
 * spells them: one character per class, the bits below, {@code A} for every data class (not {@code
 * K}, {@code E}, {@code m} or {@code n}). An empty string selects nothing, and nothing is
 * published.
 *
 * <p>Stateless and thread-safe.
 */
public final class KeyspaceEvents {
  /** K: events on {@code __keyspace@<db>__:<key>}. */
  public static final int KEYSPACE = 1;

  /** E: events on {@code __keyevent@<db>__:<event>}. */
  public static final int KEYEVENT = 1 << 1;

  /** g: generic commands (DEL, EXPIRE, RENAME...). */
  public static final int GENERIC = 1 << 2;

  /** $: string commands. */
  public static final int STRING = 1 << 3;

  /** l: list commands. */
  public static final int LIST = 1 << 4;

  /** s: set commands. */
  public static final int SET = 1 << 5;

  /** h: hash commands. */
  public static final int HASH = 1 << 6;

  /** z: sorted set commands. */
  public static final int ZSET = 1 << 7;

  /** x: a key expired. */
  public static final int EXPIRED = 1 << 8;

  /** e: a key was evicted. */
  public static final int EVICTED = 1 << 9;

  /** t: stream commands. */
  public static final int STREAM = 1 << 10;

  /** m: a key was read and missed. */
  public static final int KEY_MISS = 1 << 11;

  /** d: module events. */
  public static final int MODULE = 1 << 13;

  /** n: a key was created. */
  public static final int NEW = 1 << 14;

  /** A: every data class. */
  public static final int ALL =
      GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

  private static final String DATA_CLASSES = "g$lshzxetdn";
  private static final int[] DATA_BITS = {
    GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE, NEW
  };

  private KeyspaceEvents() {}

  /**
   * Returns the classes a string selects, or -1 if it holds a character that names none.
   *
   * @param classes characters from {@code Ag$lshzxeKEtmdn}, in any order
   */
  public static int parse(String classes) {
    int flags = 0;
    for (int i = 0; i < classes.length(); i++) {
      char c = classes.charAt(i);
      int data = DATA_CLASSES.indexOf(c);
      int bits =
          switch (c) {
            case 'A' -> ALL;
            case 'K' -> KEYSPACE;
            case 'E' -> KEYEVENT;
            case 'm' -> KEY_MISS;
            default -> data >= 0 ? DATA_BITS[data] : 0;
          };
      if (bits == 0) {
        return -1;
      }
      flags |= bits;
    }
    return flags;
  }

  /**
   * Returns the string CONFIG GET shows: {@code A} for every data class, else each class, then K, E
   * and m.
   *
   * @param flags classes from {@link #parse}
   */
  public static String format(int flags) {
    StringBuilder s = new StringBuilder();
    if ((flags & ALL) == ALL) {
      // As Redis prints it: 'n' is not part of A, and is not shown beside it.
      s.append('A');
    } else {
      for (int i = 0; i < DATA_BITS.length; i++) {
        if ((flags & DATA_BITS[i]) != 0) {
          s.append(DATA_CLASSES.charAt(i));
        }
      }
    }
    if ((flags & KEYSPACE) != 0) {
      s.append('K');
    }
    if ((flags & KEYEVENT) != 0) {
      s.append('E');
    }
    if ((flags & KEY_MISS) != 0) {
      s.append('m');
    }
    return s.toString();
  }
}
