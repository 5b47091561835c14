package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.MOVABLE_KEYS;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.cluster.ServerCluster;
import dev.larder.server.internal.keyspace.ListPayload;
import dev.larder.server.internal.keyspace.SetPayload;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.keyspace.ZSetPayload;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * SORT and SORT_RO, Redis 7.0's: the elements of a list, set or sorted set, sorted as numbers (or
 * as byte strings with ALPHA), by themselves or by weights that a BY pattern names ({@link
 * SortPattern}), in a LIMIT window, each replaced by what GET patterns name; SORT's STORE writes
 * the result as a list (or deletes the destination when it is empty) and answers its length.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Both run under the keyspace's exclusive lock: the BY and GET lookups and the STORE see and
 * leave the keyspace as one step, as in Redis, and with a log the STORE is one record; it is a
 * plain {@code Keyspace.put} or {@code delete}, so notifications ({@code sortstore}, or {@code
 * del}), tracking, blocked clients, the log and a cluster see it like any write.
 *
 * <p>Order. Redis sorts with glibc's {@code qsort}, a merge sort (stable), comparing numbers with
 * ties broken by the elements' bytes, and ALPHA by {@code strcoll} (no STORE) or {@code memcmp}
 * (STORE). Larder sorts with {@link List#sort} (stable too), with the same comparison, collating as
 * the C locale does (bytes up to a NUL). A stable sort of the same sequence with the same
 * comparison gives the same result, so lists sort as in Redis; sets and sorted sets are loaded in
 * Larder's order, not Redis's hash order, which shows only where the comparison leaves ties (ALPHA
 * with BY weights that are equal or missing). Without sorting ({@code BY} a pattern without {@code
 * *}) a list or sorted set keeps its order (reversed by DESC), a set its stored order; a set with
 * STORE is then sorted ALPHA, as Redis does to keep replicas alike.
 *
 * <p>Cluster. A connection that gets redirections (READONLY, or {@code cluster-redirects on}) is
 * refused BY patterns with {@code *} and every GET, with Redis 7.0's errors, as Redis Cluster
 * refuses them; other connections are served, the pattern keys read through the cluster like any
 * key, as multi-key commands are.
 *
 * <p>Stateless.
 */
final class SortCommand {
  private static final String ARGUMENTS =
      "key:key ?pattern:pattern ?offset_count:block ?pattern:pattern* ?order:oneof"
          + " ?sorting:pure-token";

  private SortCommand() {}

  static void register(RespCommandTable t) {
    t.command("sort", -2)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, 1, 1)
        .optionKey(SortCommand::storeKeyAt)
        .doc(
            "generic",
            "Sort the elements in a list, set or sorted set",
            ARGUMENTS + " ?destination:key")
        .run(c -> sort(c, false));
    t.command("sort_ro", -2)
        // movablekeys, as Redis reports it: its key specification for BY and GET is incomplete
        .flags(READONLY, EXCLUSIVE, MOVABLE_KEYS)
        .keys(1, 1, 1)
        .doc(
            "generic",
            "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
            ARGUMENTS)
        .run(c -> sort(c, true));
  }

  /**
   * Where SORT's destination is, as Redis's key search for SORT finds it: the word after the last
   * STORE that has one, skipping LIMIT's two and BY's and GET's one argument.
   *
   * @param args a SORT request, the name included
   * @return its position, or 0 without STORE
   */
  static int storeKeyAt(List<byte[]> args) {
    int at = 0;
    for (int i = 2; i < args.size(); i++) {
      switch (lower(args.get(i))) {
        case "limit" -> i += 2;
        case "get", "by" -> i += 1;
        case "store" -> at = i + 1 < args.size() ? i + 1 : at;
        default -> {}
      }
    }
    return at;
  }

  /** A parsed SORT request. */
  private static final class Options {
    boolean desc;
    boolean alpha;
    boolean dontSort;
    long limitStart;
    long limitCount = -1;
    byte[] by;
    byte[] store;
    final List<byte[]> gets = new ArrayList<>();
  }

  /** One element and what it sorts by. */
  private static final class Item {
    final byte[] element;
    double score;
    byte[] weight;

    Item(byte[] element) {
      this.element = element;
    }
  }

  private static void sort(RespCall c, boolean readOnly) {
    Options o = parse(c, readOnly);
    StoredValue v = c.keyspace().get(c.db(), c.arg(1));
    if (v != null
        && v.type() != ValueType.LIST
        && v.type() != ValueType.SET
        && v.type() != ValueType.ZSET) {
      throw new RespError(RespError.WRONGTYPE);
    }
    ValueType type = v == null ? ValueType.LIST : v.type();
    if (o.dontSort && type == ValueType.SET && o.store != null) {
      // Redis sorts a set it stores, so the stored list does not depend on the set's order
      o.dontSort = false;
      o.alpha = true;
      o.by = null;
    }
    List<Item> items = load(v, type, o);
    if (!o.dontSort) {
      weigh(c, items, o);
      items.sort(comparator(o));
    }
    long n = items.size();
    long start = Math.min(Math.max(o.limitStart, 0), n);
    long count = Math.min(Math.max(o.limitCount, -1), n);
    long end = count < 0 ? n - 1 : start + count - 1;
    if (start >= n) {
      start = n - 1;
      end = n - 2;
    }
    end = Math.min(end, n - 1);
    List<Item> window = items.subList((int) Math.max(start, 0), (int) Math.max(end + 1, 0));
    if (o.store == null) {
      reply(c, window, o);
    } else {
      store(c, window, o);
    }
  }

  private static Options parse(RespCall c, boolean readOnly) {
    Options o = new Options();
    boolean clusterRefuses = refusesPatterns(c);
    boolean allKeys = c.session.user == null || c.session.user.rules().allKeys();
    for (int j = 2; j < c.argc(); j++) {
      int left = c.argc() - j - 1;
      String word = c.option(j);
      if (word.equals("asc")) {
        o.desc = false;
      } else if (word.equals("desc")) {
        o.desc = true;
      } else if (word.equals("alpha")) {
        o.alpha = true;
      } else if (word.equals("limit") && left >= 2) {
        o.limitStart = c.integer(j + 1);
        o.limitCount = c.integer(j + 2);
        j += 2;
      } else if (!readOnly && word.equals("store") && left >= 1) {
        o.store = c.arg(++j);
      } else if (word.equals("by") && left >= 1) {
        o.by = c.arg(++j);
        o.dontSort = !SortPattern.namesKeys(o.by);
        if (!o.dontSort) {
          refusePattern("BY", clusterRefuses, allKeys);
        }
      } else if (word.equals("get") && left >= 1) {
        refusePattern("GET", clusterRefuses, allKeys);
        o.gets.add(c.arg(++j));
      } else {
        throw new RespError(RespError.SYNTAX);
      }
    }
    return o;
  }

  private static void refusePattern(String option, boolean clusterRefuses, boolean allKeys) {
    if (clusterRefuses) {
      throw new RespError("ERR " + option + " option of SORT denied in Cluster mode.");
    }
    if (!allKeys) {
      throw new RespError(
          "ERR " + option + " option of SORT denied due to insufficient ACL permissions.");
    }
  }

  /** Whether the connection gets Redis Cluster's answers (redirections), which refuse patterns. */
  private static boolean refusesPatterns(RespCall c) {
    ServerCluster cluster = c.server().cluster();
    return cluster != null && (c.session.readOnly || cluster.redirectsAll());
  }

  /** The elements to sort, in the value's order; without sorting, in the order of the reply. */
  private static List<Item> load(StoredValue v, ValueType type, Options o) {
    List<byte[]> elements =
        v == null
            ? List.of()
            : switch (type) {
              case LIST -> ListPayload.decode(v.payload());
              case SET -> SetPayload.members(v.payload());
              default ->
                  ZSetPayload.entries(v.payload()).stream().map(ZSetPayload.Entry::member).toList();
            };
    List<Item> items = new ArrayList<>(elements.size());
    elements.forEach(e -> items.add(new Item(e)));
    if (o.dontSort && o.desc && type != ValueType.SET) {
      java.util.Collections.reverse(items);
    }
    return items;
  }

  /** Looks up each element's weight; a number unless ALPHA. */
  private static void weigh(RespCall c, List<Item> items, Options o) {
    boolean unconvertible = false;
    for (Item item : items) {
      byte[] by = o.by == null ? item.element : SortPattern.resolve(c, o.by, item.element);
      if (by == null) {
        continue;
      }
      if (o.alpha) {
        item.weight = o.by == null ? null : by;
      } else {
        Double score = SortWeight.parse(by);
        unconvertible |= score == null;
        item.score = score == null ? 0.0 : score.doubleValue();
      }
    }
    if (unconvertible) {
      throw new RespError("ERR One or more scores can't be converted into double");
    }
  }

  private static Comparator<Item> comparator(Options o) {
    Comparator<Item> cmp;
    if (!o.alpha) {
      cmp =
          (a, b) ->
              a.score > b.score
                  ? 1
                  : a.score < b.score ? -1 : Arrays.compareUnsigned(a.element, b.element);
    } else {
      Comparator<byte[]> strings = o.store != null ? Arrays::compareUnsigned : SortCommand::collate;
      cmp =
          o.by == null
              ? (a, b) -> strings.compare(a.element, b.element)
              : (a, b) -> compareWeights(a.weight, b.weight, strings);
    }
    return o.desc ? cmp.reversed() : cmp;
  }

  /** ALPHA by weights: a missing weight sorts first, two missing ones are equal. */
  private static int compareWeights(byte[] a, byte[] b, Comparator<byte[]> strings) {
    if (a == null) {
      return b == null ? 0 : -1;
    }
    if (b == null) {
      return 1;
    }
    return strings.compare(a, b);
  }

  /**
   * Compares as C's {@code strcoll} in the C locale: unsigned bytes up to the first NUL of either.
   */
  static int collate(byte[] a, byte[] b) {
    for (int i = 0; ; i++) {
      int x = i < a.length ? a[i] & 0xFF : 0;
      int y = i < b.length ? b[i] & 0xFF : 0;
      if (x != y || x == 0) {
        return x - y;
      }
    }
  }

  private static void reply(RespCall c, List<Item> window, Options o) {
    RespWriter out = c.out();
    out.array(o.gets.isEmpty() ? window.size() : window.size() * o.gets.size());
    for (Item item : window) {
      if (o.gets.isEmpty()) {
        out.bulk(item.element);
      }
      for (byte[] get : o.gets) {
        out.bulk(SortPattern.resolve(c, get, item.element));
      }
    }
  }

  private static void store(RespCall c, List<Item> window, Options o) {
    List<byte[]> result = new ArrayList<>();
    for (Item item : window) {
      if (o.gets.isEmpty()) {
        result.add(item.element);
      }
      for (byte[] get : o.gets) {
        byte[] found = SortPattern.resolve(c, get, item.element);
        result.add(found == null ? new byte[0] : found);
      }
    }
    if (result.isEmpty()) {
      c.keyspace().delete(c.db(), o.store);
    } else {
      c.keyspace()
          .put(
              c.db(),
              o.store,
              new StoredValue(ValueType.LIST, 0, 0, 0, ListPayload.encode(result)));
    }
    c.out().integer(result.size());
  }

  private static String lower(byte[] word) {
    return new String(word, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
  }
}
