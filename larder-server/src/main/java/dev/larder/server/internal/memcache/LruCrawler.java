package dev.larder.server.internal.memcache;

import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * memcached's {@code lru_crawler}, the part Larder's store can answer truthfully: {@code metadump
 * all|hash|<classes>}, one line per item of database 0, {@code key=<uri-encoded key> exp=<Unix
 * time, -1 none> la=<last access, 0 if not recorded> cas=<unique> fetch=<yes|no> cls=1 size=<key
 * and value bytes>}, each ended by a bare line feed as memcached's crawler ends them, then {@code
 * END}. Larder has no LRU crawler thread or slab classes: every item is in class 1 (as {@code stats
 * items} says), so a class list without {@code 1} dumps nothing. As in memcached, a metadump behind
 * replies memcached would still hold is refused ({@link MemcacheSession#repliesHeld}), a class that
 * is not a number from 1 to 63 is {@code BADCLASS}, and a list with no class at all (only commas)
 * is {@code NOTSTARTED}. {@code crawl}, {@code enable}, {@code disable}, {@code sleep} and the rest
 * are {@code ERROR}, the reply to a command the server does not have. Stateless.
 */
final class LruCrawler {
  static final String PIPELINED = "ERROR cannot pipeline other commands before metadump";

  private LruCrawler() {}

  static void run(MemcacheSession s, List<byte[]> t, byte[] data) {
    if (t.size() != 3 || !"metadump".equals(text(t, 1))) {
      s.line("ERROR");
      return;
    }
    if (s.repliesHeld) {
      s.line(PIPELINED);
      return;
    }
    String which = text(t, 2);
    boolean all = which.equals("all") || which.equals("hash");
    boolean classOne = all;
    if (!all) {
      int classes = 0;
      // memcached splits the list with strtok: empty parts between commas are skipped
      for (String c : which.split(",", -1)) {
        if (c.isEmpty()) {
          continue;
        }
        long n = MemcacheSession.unsigned(c.getBytes(StandardCharsets.US_ASCII), 63);
        if (n < 1) {
          s.line("BADCLASS invalid class id");
          return;
        }
        classes++;
        classOne |= n == 1;
      }
      if (classes == 0) {
        s.line("NOTSTARTED no items to crawl");
        return;
      }
    }
    if (classOne && s.server.keyspaceCountable()) {
      s.keyspace()
          .forEach(
              MemcacheSession.DB,
              (key, v) -> {
                if (v.type() == ValueType.STRING) {
                  s.out.writeCharSequence(line(key, v), StandardCharsets.ISO_8859_1);
                  s.out.writeByte('\n');
                }
              });
    }
    s.line("END");
    // memcached's crawler writes the dump straight to the socket, behind the replies written out
    s.writeOut();
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
