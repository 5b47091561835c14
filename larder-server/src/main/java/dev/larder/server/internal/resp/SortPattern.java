package dev.larder.server.internal.resp;

import dev.larder.server.internal.keyspace.HashPayload;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.util.Arrays;

/**
 * SORT's BY and GET patterns, as Redis 7.0 resolves them for one element: {@code #} is the element
 * itself; otherwise the first {@code *} is replaced by the element to name a key, which must hold a
 * string, unless the pattern has {@code ->} after the {@code *} followed by at least one byte: then
 * the part before the arrow names a hash and the part after it a field of it. A pattern without
 * {@code *}, a missing key, a key of another type or a missing field resolve to nothing.
 *
 * <p>Stateless; reads through the keyspace (expired keys are absent), so the caller holds the lock
 * the command runs under.
 */
final class SortPattern {
  private SortPattern() {}

  /** Returns whether the pattern names keys (has a {@code *}); BY without one means no sorting. */
  static boolean namesKeys(byte[] pattern) {
    return indexOf(pattern, (byte) '*', 0) >= 0;
  }

  /** Returns whether the pattern is {@code #}, the element itself. */
  static boolean isElement(byte[] pattern) {
    return pattern.length == 1 && pattern[0] == '#';
  }

  /**
   * Returns what the pattern names for the element, or null.
   *
   * @param c the call (its keyspace and database)
   * @param pattern a BY or GET pattern
   * @param element the element being sorted
   */
  static byte[] resolve(RespCall c, byte[] pattern, byte[] element) {
    if (isElement(pattern)) {
      return element;
    }
    int star = indexOf(pattern, (byte) '*', 0);
    if (star < 0) {
      return null;
    }
    int arrow = arrowAfter(pattern, star + 1);
    int keyEnd = arrow >= 0 ? arrow : pattern.length;
    byte[] key = new byte[star + element.length + keyEnd - star - 1];
    System.arraycopy(pattern, 0, key, 0, star);
    System.arraycopy(element, 0, key, star, element.length);
    System.arraycopy(pattern, star + 1, key, star + element.length, keyEnd - star - 1);
    StoredValue v = c.keyspace().get(c.db(), key);
    if (v == null) {
      return null;
    }
    if (arrow < 0) {
      return v.type() == ValueType.STRING ? v.payload() : null;
    }
    if (v.type() != ValueType.HASH) {
      return null;
    }
    byte[] field = Arrays.copyOfRange(pattern, arrow + 2, pattern.length);
    return HashPayload.decode(v.payload()).get(HashPayload.field(field));
  }

  /** Returns where the first {@code ->} from {@code from} is, if a field follows it, else -1. */
  private static int arrowAfter(byte[] pattern, int from) {
    for (int i = from; i + 1 < pattern.length; i++) {
      if (pattern[i] == '-' && pattern[i + 1] == '>') {
        return i + 2 < pattern.length ? i : -1;
      }
    }
    return -1;
  }

  private static int indexOf(byte[] b, byte x, int from) {
    for (int i = from; i < b.length; i++) {
      if (b[i] == x) {
        return i;
      }
    }
    return -1;
  }
}
