package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.ElementSlices;
import dev.larder.server.internal.keyspace.ListPayload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The list commands that do not block, as Redis 7.0 defines them. A list is one value ({@link
 * ListPayload}); an emptied list is deleted. Commands of two keys (LMOVE, RPOPLPUSH) and LMPOP run
 * under the keyspace's exclusive lock; the blocking ones are {@link BlockingListCommands}.
 */
final class ListCommands {
  private ListCommands() {}

  static void register(RespCommandTable t) {
    registerPushes(t);
    registerPops(t);
    registerReads(t);
    registerEdits(t);
  }

  private static void registerPushes(RespCommandTable t) {
    t.command("lpush", -3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc("list", "Prepends one or more elements to a list.", "key:key element:string*")
        .run(c -> push(c, true, false));
    t.command("rpush", -3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc("list", "Appends one or more elements to a list.", "key:key element:string*")
        .run(c -> push(c, false, false));
    t.command("lpushx", -3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Prepends one or more elements to a list only when the list exists.",
            "key:key element:string*")
        .run(c -> push(c, true, true));
    t.command("rpushx", -3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Appends one or more elements to a list only when the list exists.",
            "key:key element:string*")
        .run(c -> push(c, false, true));
  }

  private static void registerPops(RespCommandTable t) {
    t.command("lpop", -2)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Returns the first elements in a list after removing it. Deletes the list if the last"
                + " element was popped.",
            "key:key ?count:integer")
        .run(c -> pop(c, true));
    t.command("rpop", -2)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Returns and removes the last elements of a list. Deletes the list if the last element"
                + " was popped.",
            "key:key ?count:integer")
        .run(c -> pop(c, false));
    t.command("lmove", 5)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, 2, 1)
        .doc(
            "list",
            "Returns an element after popping it from one list and pushing it to another. Deletes"
                + " the list if the last element was moved.",
            "source:key destination:key wherefrom:oneof whereto:oneof")
        .run(c -> move(c, end(c, 3), end(c, 4)));
    t.command("rpoplpush", 3)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, 2, 1)
        .doc(
            "list",
            "Returns the last element of a list after removing and pushing it to another list."
                + " Deletes the list if the last element was popped.",
            "source:key destination:key")
        .run(c -> move(c, false, true));
    t.command("lmpop", -4)
        .flags(WRITE, EXCLUSIVE)
        .countedKeys(1)
        .doc(
            "list",
            "Returns multiple elements from a list after removing them. Deletes the list if the"
                + " last element was popped.",
            "numkeys:integer key:key* where:oneof ?count:integer")
        .run(c -> lmpop(c, 1));
  }

  private static void registerReads(RespCommandTable t) {
    t.command("llen", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("list", "Returns the length of a list.", "key:key")
        .run(c -> c.out().integer(ListAccess.read(c, c.arg(1), l -> l == null ? 0 : l.size())));
    t.command("lrange", 4)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Returns a range of elements from a list.",
            "key:key start:integer stop:integer")
        .run(ListCommands::lrange);
    t.command("lindex", 3)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc("list", "Returns an element from a list by its index.", "key:key index:integer")
        .run(ListCommands::lindex);
    t.command("lpos", -3)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Returns the index of matching elements in a list.",
            "key:key element:string ?rank:integer ?num-matches:integer ?len:integer")
        .run(ListPosition::lpos);
  }

  private static void registerEdits(RespCommandTable t) {
    t.command("lset", 4)
        .flags(WRITE, DENYOOM)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Sets the value of an element in a list by its index.",
            "key:key index:integer element:string")
        .run(ListCommands::lset);
    t.command("linsert", 5)
        .flags(WRITE, DENYOOM)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Inserts an element before or after another element in a list.",
            "key:key where:oneof pivot:string element:string")
        .run(ListCommands::linsert);
    t.command("lrem", 4)
        .flags(WRITE)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Removes elements from a list. Deletes the list if the last element was removed.",
            "key:key count:integer element:string")
        .run(ListCommands::lrem);
    t.command("ltrim", 4)
        .flags(WRITE)
        .keys(1, 1, 1)
        .doc(
            "list",
            "Removes elements from both ends a list. Deletes the list if all elements were"
                + " trimmed.",
            "key:key start:integer stop:integer")
        .run(ListCommands::ltrim);
  }

  private static void push(RespCall c, boolean head, boolean onlyExisting) {
    List<byte[]> elements = new ArrayList<>(c.argc() - 2);
    for (int i = 2; i < c.argc(); i++) {
      elements.add(c.arg(i));
    }
    c.out().integer(ListAccess.push(c.keyspace(), c.db(), c.arg(1), head, elements, onlyExisting));
  }

  private static void pop(RespCall c, boolean head) {
    if (c.argc() > 3) {
      throw c.arityError();
    }
    if (c.argc() == 2) {
      List<byte[]> taken = ListAccess.pop(c.keyspace(), c.db(), c.arg(1), head, 1);
      c.out().bulk(taken == null ? null : taken.getFirst());
      return;
    }
    long count = c.integer(2);
    if (count < 0) {
      throw new RespError("ERR value is out of range, must be positive");
    }
    if (count == 0) {
      boolean exists = ListAccess.read(c, c.arg(1), l -> l != null);
      writeArray(c.out(), exists ? List.of() : null);
      return;
    }
    List<byte[]> taken =
        ListAccess.pop(c.keyspace(), c.db(), c.arg(1), head, (int) Math.min(count, 1 << 30));
    writeArray(c.out(), taken);
  }

  /** Writes the elements as an array, or the null array for null. */
  static void writeArray(RespWriter out, List<byte[]> elements) {
    if (elements == null) {
      out.nullArray();
      return;
    }
    out.array(elements.size());
    elements.forEach(out::bulk);
  }

  private static void move(RespCall c, boolean fromHead, boolean toHead) {
    c.out().bulk(ListAccess.move(c.keyspace(), c.db(), c.arg(1), c.arg(2), fromHead, toHead));
  }

  /**
   * Returns whether the word at {@code i} is LEFT (true) or RIGHT (false).
   *
   * @throws RespError a syntax error for anything else
   */
  static boolean end(RespCall c, int i) {
    return switch (c.option(i)) {
      case "left" -> true;
      case "right" -> false;
      default -> throw new RespError(RespError.SYNTAX);
    };
  }

  /**
   * LMPOP from {@code numkeysAt}: {@code numkeys key... LEFT|RIGHT [COUNT n]}.
   *
   * @return its parsed arguments
   */
  static MultiPop parseMultiPop(RespCall c, int numkeysAt) {
    long numkeys = positive(c, numkeysAt, "ERR numkeys should be greater than 0");
    int where = numkeysAt + 1 + (int) Math.min(numkeys, Integer.MAX_VALUE - numkeysAt - 1);
    if (where >= c.argc()) {
      throw new RespError(RespError.SYNTAX);
    }
    List<byte[]> keys = new ArrayList<>();
    for (int i = numkeysAt + 1; i < where; i++) {
      keys.add(c.arg(i));
    }
    boolean head = end(c, where);
    long count = 1;
    boolean counted = false;
    for (int i = where + 1; i < c.argc(); i++) {
      if (c.option(i).equals("count") && i + 1 < c.argc() && !counted) {
        count = positive(c, ++i, "ERR count should be greater than 0");
        counted = true;
      } else {
        throw new RespError(RespError.SYNTAX);
      }
    }
    return new MultiPop(keys, head, (int) Math.min(count, 1 << 30));
  }

  /** Returns the argument as a positive long; anything else is {@code error}, as Redis answers. */
  private static long positive(RespCall c, int i, String error) {
    long n;
    try {
      n = c.integer(i);
    } catch (RespError e) {
      throw new RespError(error);
    }
    if (n <= 0) {
      throw new RespError(error);
    }
    return n;
  }

  /**
   * LMPOP's and BLMPOP's parsed arguments.
   *
   * @param keys the keys, in order
   * @param head pop from the head (LEFT) or the tail
   * @param count the most elements to pop
   */
  record MultiPop(List<byte[]> keys, boolean head, int count) {
    /**
     * Pops from the first non-empty list.
     *
     * @return the key and the elements, or null if every list is empty
     * @throws RespError WRONGTYPE at the first key of another type before it
     */
    Popped popFirst(RespCall c) {
      for (byte[] key : keys) {
        List<byte[]> taken = ListAccess.pop(c.keyspace(), c.db(), key, head, count);
        if (taken != null) {
          return new Popped(key, taken);
        }
      }
      return null;
    }
  }

  /**
   * What a multi-key pop took.
   *
   * @param key the key it took them from
   * @param elements the elements, in the order taken
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record Popped(byte[] key, List<byte[]> elements) {
    /** Writes LMPOP's reply: the key and an array of the elements. */
    void writeNested(RespWriter out) {
      out.array(2);
      out.bulk(key);
      writeArray(out, elements);
    }
  }

  private static void lmpop(RespCall c, int numkeysAt) {
    Popped p = parseMultiPop(c, numkeysAt).popFirst(c);
    if (p == null) {
      c.out().nullArray();
    } else {
      p.writeNested(c.out());
    }
  }

  private static void lrange(RespCall c) {
    long start = c.integer(2);
    long stop = c.integer(3);
    // The elements are written from the payloads the read loaded, not copied one by one first;
    // the slices are made afresh in each run of the read (a run that met a chunk being evicted is
    // run again).
    ElementSlices found =
        ListAccess.read(
            c,
            c.arg(1),
            l -> {
              int[] span = l == null ? null : span(start, stop, l.size());
              if (span == null) {
                return new ElementSlices(0);
              }
              ElementSlices slices = new ElementSlices(span[1] - span[0] + 1);
              l.range(span[0], span[1], slices);
              return slices;
            });
    RespWriter out = c.out();
    out.array(found.size());
    for (int i = 0; i < found.size(); i++) {
      out.bulk(found.array(i), found.offset(i), found.length(i));
    }
  }

  /**
   * Returns Redis's range of {@code start..stop} in a list of {@code length}: negative indexes
   * count from the end, both are clamped; null for an empty range.
   */
  static int[] span(long start, long stop, int length) {
    if (start < 0) {
      start = Math.max(0, start + length);
    }
    if (stop < 0) {
      stop += length;
    }
    if (stop >= length) {
      stop = length - 1L;
    }
    if (start > stop || start >= length) {
      return null;
    }
    return new int[] {(int) start, (int) stop};
  }

  /** Returns the index in a list of {@code length}, or -1 if it is outside. */
  private static int index(long index, int length) {
    long i = index < 0 ? index + length : index;
    return i < 0 || i >= length ? -1 : (int) i;
  }

  private static void lindex(RespCall c) {
    long index = c.integer(2);
    byte[] found =
        ListAccess.read(
            c,
            c.arg(1),
            l -> {
              int i = l == null ? -1 : index(index, l.size());
              return i < 0 ? null : l.get(i);
            });
    c.out().bulk(found);
  }

  private static void lset(RespCall c) {
    long index = c.integer(2);
    ListAccess.edit(
        c,
        c.arg(1),
        l -> {
          if (l == null) {
            throw new RespError("ERR no such key");
          }
          int i = index(index, l.size());
          if (i < 0) {
            throw new RespError("ERR index out of range");
          }
          l.set(i, c.arg(3));
          return null;
        });
    c.out().ok();
  }

  private static void linsert(RespCall c) {
    boolean before =
        switch (c.option(2)) {
          case "before" -> true;
          case "after" -> false;
          default -> throw new RespError(RespError.SYNTAX);
        };
    long result =
        ListAccess.edit(
            c,
            c.arg(1),
            l -> {
              if (l == null) {
                return 0L;
              }
              for (int s = 0; s < l.segmentCount(); s++) {
                List<byte[]> elements = l.segmentElements(s);
                int at = indexOf(elements, c.arg(3));
                if (at >= 0) {
                  elements.add(before ? at : at + 1, c.arg(4));
                  l.replaceSegment(s, elements);
                  return (long) l.size();
                }
              }
              return -1L;
            });
    c.out().integer(result);
  }

  private static int indexOf(List<byte[]> elements, byte[] wanted) {
    for (int i = 0; i < elements.size(); i++) {
      if (Arrays.equals(elements.get(i), wanted)) {
        return i;
      }
    }
    return -1;
  }

  private static void lrem(RespCall c) {
    long count = c.integer(2);
    byte[] wanted = c.arg(3);
    long limit = count == 0 ? Long.MAX_VALUE : Math.abs(count);
    long removed =
        ListAccess.edit(
            c,
            c.arg(1),
            l -> {
              long n = 0;
              if (l == null) {
                return n;
              }
              // From the tail for a negative count: segments last first, each walked backwards.
              // Removing segment s moves only the segments after it.
              int s = count < 0 ? l.segmentCount() - 1 : 0;
              for (; s >= 0 && s < l.segmentCount() && n < limit; s += count < 0 ? -1 : 1) {
                List<byte[]> elements = l.segmentElements(s);
                List<byte[]> walk = count < 0 ? elements.reversed() : elements;
                List<byte[]> out = new ArrayList<>(elements.size());
                long before = n;
                for (byte[] e : walk) {
                  if (n < limit && Arrays.equals(e, wanted)) {
                    n++;
                  } else {
                    out.add(e);
                  }
                }
                if (n != before) {
                  l.replaceSegment(s, count < 0 ? out.reversed() : out);
                  if (out.isEmpty() && count >= 0) {
                    s--;
                  }
                }
              }
              return n;
            });
    c.out().integer(removed);
  }

  private static void ltrim(RespCall c) {
    long start = c.integer(2);
    long stop = c.integer(3);
    ListAccess.edit(
        c,
        c.arg(1),
        l -> {
          if (l == null) {
            return null;
          }
          int length = l.size();
          int[] span = span(start, stop, length);
          if (span == null) {
            l.popHead(length);
          } else if (span[0] != 0 || span[1] != length - 1) {
            l.trim(span[0], span[1]);
          }
          return null;
        });
    c.out().ok();
  }
}
