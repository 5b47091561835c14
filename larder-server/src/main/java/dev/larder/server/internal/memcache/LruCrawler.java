package dev.larder.server.internal.memcache;

import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * memcached's {@code lru_crawler}, the part Larder's store can answer truthfully: {@code metadump
 * all|hash|1}, one line per item of database 0, {@code key=<uri-encoded key> exp=<Unix time, -1
 * none> la=<last access, 0 if not recorded> cas=<unique> fetch=<yes|no> cls=1 size=<key and value
 * bytes>}, then {@code END}. Larder has no LRU crawler thread or slab classes: every item is in
 * class 1 (as {@code stats items} says), so a class list other than {@code 1} dumps nothing, and
 * {@code crawl}, {@code enable}, {@code disable}, {@code sleep} and the rest are {@code ERROR}, the
 * reply to a command the server does not have. Stateless.
 */
final class LruCrawler {
  private LruCrawler() {}

  static void run(MemcacheSession s, List<byte[]> t, byte[] data) {
    if (t.size() != 3 || !"metadump".equals(text(t, 1))) {
      s.line("ERROR");
      return;
    }
    String which = text(t, 2);
    boolean all = which.equals("all") || which.equals("hash");
    if (!all && !classes(which)) {
      s.line("CLIENT_ERROR bad command line format");
      return;
    }
    if ((all || List.of(which.split(",", -1)).contains("1")) && s.server.keyspaceCountable()) {
      s.keyspace()
          .forEach(
              MemcacheSession.DB,
              (key, v) -> {
                if (v.type() == ValueType.STRING) {
                  s.line(line(key, v));
                }
              });
    }
    s.line("END");
  }

  /** Whether a class list is memcached's: numbers from 1 to 63, separated by commas. */
  private static boolean classes(String list) {
    for (String c : list.split(",", -1)) {
      long n = MemcacheSession.unsigned(c.getBytes(StandardCharsets.US_ASCII), 63);
      if (n < 1) {
        return false;
      }
    }
    return true;
  }

  static String line(byte[] key, StoredValue v) {
    long state = v.itemState();
    return "key="
        + MemcacheWatchers.uriEncoded(key)
        + " exp="
        + (v.volatileKey() ? v.expiresAtMillis() / 1000 : -1)
        + " la="
        + ItemState.lastAccessSeconds(state)
        + " cas="
        + v.version()
        + " fetch="
        + (ItemState.has(state, ItemState.FETCHED) ? "yes" : "no")
        + " cls=1 size="
        + (key.length + v.payload().length);
  }

  private static String text(List<byte[]> t, int i) {
    return new String(t.get(i), StandardCharsets.US_ASCII);
  }
}
