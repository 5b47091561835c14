package dev.larder.server.internal.resp;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ListBody;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.pubsub.KeyEvents;
import java.util.List;
import java.util.function.Function;

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
    String named = KeyEvents.nameEvents(head ? "lpush" : "rpush");
    try {
      return ks.editList(
          db,
          key,
          (before, list) -> {
            if (RespCall.requireType(before, ValueType.LIST) == null && onlyExisting) {
              return 0L;
            }
            if (head) {
              list.pushHead(elements);
            } else {
              list.pushTail(elements);
            }
            return (long) list.size();
          });
    } finally {
      KeyEvents.nameEvents(named);
    }
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
    String named = KeyEvents.nameEvents(head ? "lpop" : "rpop");
    try {
      return ks.editList(
          db,
          key,
          (before, list) -> {
            if (RespCall.requireType(before, ValueType.LIST) == null) {
              return null;
            }
            return head ? list.popHead(count) : list.popTail(count);
          });
    } finally {
      KeyEvents.nameEvents(named);
    }
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
    if (RespCall.requireType(ks.peekType(db, source), ValueType.LIST) == null) {
      return null;
    }
    RespCall.requireType(ks.peekType(db, destination), ValueType.LIST);
    List<byte[]> taken = pop(ks, db, source, fromHead, 1);
    if (taken == null) {
      return null;
    }
    push(ks, db, destination, toHead, taken, false);
    return taken.getFirst();
  }

  /**
   * Runs a read of a list, counting a hit or a miss: {@code read} gets the list, or null if the key
   * is absent.
   *
   * @throws RespError WRONGTYPE if it holds another type
   */
  static <R> R read(RespCall c, byte[] key, Function<ListBody, R> read) {
    return c.keyspace()
        .readList(
            c.db(),
            key,
            (before, list) ->
                read.apply(RespCall.requireType(before, ValueType.LIST) == null ? null : list));
  }

  /**
   * Runs a change of an existing list: {@code edit} gets the list, or null if the key is absent.
   *
   * @throws RespError WRONGTYPE if it holds another type
   */
  static <R> R edit(RespCall c, byte[] key, Function<ListBody, R> edit) {
    return c.keyspace()
        .editList(
            c.db(),
            key,
            (before, list) ->
                edit.apply(RespCall.requireType(before, ValueType.LIST) == null ? null : list));
  }
}
