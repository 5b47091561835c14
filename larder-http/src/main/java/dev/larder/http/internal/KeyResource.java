package dev.larder.http.internal;

import dev.larder.http.CacheDirectory.Registration;
import dev.larder.http.KeyFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The key browser's scan: {@code GET /api/caches/{name}/keys?match=<glob>&cursor=<c>&count=<n>}
 * answers {@code {"cursor":"<next>","keys":["...", ...]}}, a page of the keys whose text ({@link
 * KeyFormat#format}) matches the pattern ({@link KeyGlob}; all keys by default), in the order and
 * with the guarantees of {@link KeyScan}. Start with cursor 0 (the default); a returned cursor of 0
 * means the scan is complete. {@code count} is 1 to {@value #MAX_COUNT} (default {@value
 * #DEFAULT_COUNT}).
 */
final class KeyResource {

  static final int DEFAULT_COUNT = 50;
  static final int MAX_COUNT = 1000;

  private KeyResource() {}

  static Map<String, Object> scan(
      Registration<?, ?> registration, Map<String, List<String>> query) {
    return typed(registration, query);
  }

  private static <K> Map<String, Object> typed(
      Registration<K, ?> r, Map<String, List<String>> query) {
    KeyFormat<K> keys = r.keys().orElseThrow();
    KeyScan scan =
        new KeyScan(cursor(query), count(query), new KeyGlob(first(query, "match", "*")));
    r.cache().forEachKey(key -> scan.offer(keys.format(key)));
    KeyScan.Page page = scan.finish();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("cursor", Long.toString(page.cursor()));
    out.put("keys", page.keys());
    return out;
  }

  private static long cursor(Map<String, List<String>> query) {
    String text = first(query, "cursor", "0");
    try {
      long cursor = Long.parseLong(text);
      if (cursor < 0 || cursor > KeyScan.END) {
        throw new NumberFormatException();
      }
      return cursor;
    } catch (NumberFormatException e) {
      throw HttpProblem.badRequest("cursor '" + text + "' is not a cursor this scan returned");
    }
  }

  private static int count(Map<String, List<String>> query) {
    String text = first(query, "count", Integer.toString(DEFAULT_COUNT));
    try {
      int count = Integer.parseInt(text);
      if (count < 1 || count > MAX_COUNT) {
        throw new NumberFormatException();
      }
      return count;
    } catch (NumberFormatException e) {
      throw HttpProblem.badRequest("count '" + text + "' is not in 1.." + MAX_COUNT);
    }
  }

  private static String first(Map<String, List<String>> query, String name, String absent) {
    List<String> values = query.get(name);
    return values == null || values.isEmpty() ? absent : values.get(0);
  }
}
