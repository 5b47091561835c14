package dev.larder.server.internal.resp;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ListPayload;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.pubsub.KeyEvents;
import java.util.List;

/**
 * The list changes that several commands share (pushes, pops, moves), each one atomic change of the
 * keyspace, with Redis's WRONGTYPE rule. A list emptied by a pop is deleted.
 *
 * <p>Stateless and thread-safe; a move must run under the keyspace's exclusive lock, as it changes
 * two keys.
 */
final class ListAccess {
  private ListAccess() {}

  /**
   * Returns the list's elements after a push, or 0 when {@code onlyExisting} and the key is absent.
   *
   * @param ks the keyspace
   * @param db the database
   * @param key the key
   * @param head push at the head (LPUSH) or the tail
   * @param elements the elements, pushed in order
   * @param onlyExisting LPUSHX and RPUSHX: do nothing unless the list exists
   * @throws RespError WRONGTYPE if the key holds another type
   */
  static long push(
      Keyspace ks, int db, byte[] key, boolean head, List<byte[]> elements, boolean onlyExisting) {
    long[] length = new long[1];
    String named = KeyEvents.nameEvents(head ? "lpush" : "rpush");
    try {
      ks.update(
          db,
          key,
          before -> {
            length[0] = 0;
            if (RespCall.requireType(before, ValueType.LIST) == null && onlyExisting) {
              return before;
            }
            byte[] old = before == null ? null : before.payload();
            byte[] payload =
                head ? ListPayload.pushHead(old, elements) : ListPayload.pushTail(old, elements);
            length[0] = (before == null ? 0L : ListPayload.count(old)) + elements.size();
            return before == null
                ? new StoredValue(ValueType.LIST, 0, 0, 0, payload)
                : before.withPayload(payload);
          });
    } finally {
      KeyEvents.nameEvents(named);
    }
    return length[0];
  }

  /**
   * Takes up to {@code count} elements from one end.
   *
   * @param ks the keyspace
   * @param db the database
   * @param key the key
   * @param head from the head (LPOP) or the tail
   * @param count how many, at least 1
   * @return the elements in the order taken, or null if the key is absent
   * @throws RespError WRONGTYPE if the key holds another type
   */
  static List<byte[]> pop(Keyspace ks, int db, byte[] key, boolean head, int count) {
    List<List<byte[]>> taken = new java.util.ArrayList<>(java.util.Collections.nCopies(1, null));
    String named = KeyEvents.nameEvents(head ? "lpop" : "rpop");
    try {
      takeEnd(ks, db, key, head, count, taken);
    } finally {
      KeyEvents.nameEvents(named);
    }
    return taken.getFirst();
  }

  private static void takeEnd(
      Keyspace ks, int db, byte[] key, boolean head, int count, List<List<byte[]>> taken) {
    ks.update(
        db,
        key,
        before -> {
          taken.set(0, null);
          if (RespCall.requireType(before, ValueType.LIST) == null) {
            return null;
          }
          ListPayload.Popped p =
              head
                  ? ListPayload.popHead(before.payload(), count)
                  : ListPayload.popTail(before.payload(), count);
          taken.set(0, p.elements());
          return p.rest() == null ? null : before.withPayload(p.rest());
        });
  }

  /**
   * LMOVE: takes one element from an end of {@code source} and pushes it at an end of {@code
   * destination}, the destination's type checked first (only when the source has an element, as
   * Redis does). Under the keyspace's exclusive lock.
   *
   * @return the element moved, or null if the source is absent
   * @throws RespError WRONGTYPE if either key holds another type
   */
  static byte[] move(
      Keyspace ks, int db, byte[] source, byte[] destination, boolean fromHead, boolean toHead) {
    if (RespCall.requireType(ks.peek(db, source), ValueType.LIST) == null) {
      return null;
    }
    RespCall.requireType(ks.peek(db, destination), ValueType.LIST);
    List<byte[]> taken = pop(ks, db, source, fromHead, 1);
    if (taken == null) {
      return null;
    }
    push(ks, db, destination, toHead, taken, false);
    return taken.getFirst();
  }

  /**
   * Returns the list's payload, or null if the key is absent.
   *
   * @throws RespError WRONGTYPE if it holds another type
   */
  static byte[] read(RespCall c, byte[] key) {
    StoredValue v = RespCall.requireType(c.keyspace().get(c.db(), key), ValueType.LIST);
    return v == null ? null : v.payload();
  }
}
