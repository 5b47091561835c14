package dev.larder.http.internal;

import dev.larder.http.CacheDirectory.Registration;
import dev.larder.http.KeyFormat;
import dev.larder.http.ServedCache;
import dev.larder.http.ValueFormat;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Locale;

/**
 * GET, PUT and DELETE of one entry: {@code /api/caches/{name}/entries/{key}}.
 *
 * <ul>
 *   <li>GET answers 200 with the value in the cache's value format, or 404. It reads with {@link
 *       ServedCache#getIfPresent}, so it never runs the cache's loader. For a cache that
 *       {@linkplain ServedCache#reportsTimeToLive reports expiry}, the header {@value #TTL_HEADER}
 *       gives the entry's remaining time to live in milliseconds, or -1 if it never expires
 *       (Redis's PTTL). A cache whose read refuses the key with {@link IllegalArgumentException}
 *       (larder-server's keyspace, for a key holding a hash) answers 409.
 *   <li>PUT stores the body (204). A {@code Content-Type} other than the format's media type is
 *       refused with 415; no {@code Content-Type} is taken as the format's. A body the format
 *       cannot read, or a value the cache refuses (one that can never fit its bound), is 400.
 *   <li>DELETE removes the entry (204), or answers 404 if there was none.
 * </ul>
 */
final class EntryResource {

  static final String ALLOW = "GET, PUT, DELETE";
  static final String TTL_HEADER = "X-Larder-TTL-Millis";

  private EntryResource() {}

  static HttpReply handle(
      Registration<?, ?> registration, String method, String key, String contentType, byte[] body) {
    return typed(registration, method, key, contentType, body);
  }

  private static <K, V> HttpReply typed(
      Registration<K, V> r, String method, String text, String contentType, byte[] body) {
    KeyFormat<K> keys = r.keys().orElseThrow();
    ValueFormat<V> values = r.values().orElseThrow();
    K key = parseKey(keys, text);
    ServedCache<K, V> cache = r.cache();
    return switch (method) {
      case "GET" -> {
        V value;
        try {
          value = cache.getIfPresent(key);
        } catch (IllegalArgumentException e) {
          // A cache that holds something other than a value of this format under the key
          // (larder-server's keyspace: a hash where a string is asked for).
          throw new HttpProblem(
              HttpResponseStatus.CONFLICT,
              "cache '"
                  + r.name()
                  + "' cannot give entry '"
                  + text
                  + "' as "
                  + values.mediaType()
                  + ": "
                  + e.getMessage());
        }
        if (value == null) {
          throw HttpProblem.notFound("no entry '" + text + "' in cache '" + r.name() + "'");
        }
        HttpReply reply =
            HttpReply.of(HttpResponseStatus.OK, values.contentType(), values.write(value));
        yield cache.reportsTimeToLive()
            ? reply.withHeader(
                TTL_HEADER,
                Long.toString(
                    cache.timeToLive(key).map(d -> Math.max(0, d.toMillis())).orElse(-1L)))
            : reply;
      }
      case "PUT" -> {
        checkType(values, contentType);
        V value = readValue(values, body);
        try {
          cache.put(key, value);
        } catch (IllegalArgumentException e) {
          throw HttpProblem.badRequest(
              "cache '" + r.name() + "' refused the value: " + e.getMessage());
        }
        yield HttpReply.noContent();
      }
      case "DELETE" -> {
        if (!cache.remove(key)) {
          throw HttpProblem.notFound("no entry '" + text + "' in cache '" + r.name() + "'");
        }
        yield HttpReply.noContent();
      }
      default -> throw HttpProblem.methodNotAllowed(method, "an entry", ALLOW);
    };
  }

  private static <K> K parseKey(KeyFormat<K> keys, String text) {
    try {
      return keys.parse(text);
    } catch (IllegalArgumentException e) {
      throw HttpProblem.badRequest(e.getMessage());
    }
  }

  private static <V> V readValue(ValueFormat<V> values, byte[] body) {
    try {
      return values.read(body);
    } catch (IllegalArgumentException e) {
      throw HttpProblem.badRequest(e.getMessage());
    }
  }

  private static void checkType(ValueFormat<?> values, String contentType) {
    if (contentType == null) {
      return;
    }
    int semicolon = contentType.indexOf(';');
    String type =
        (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
            .strip()
            .toLowerCase(Locale.ROOT);
    if (!type.equals(values.mediaType())) {
      throw new HttpProblem(
          HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
          "this cache's values are " + values.mediaType() + ", not " + type);
    }
    String lower = contentType.toLowerCase(Locale.ROOT);
    int charset = lower.indexOf("charset=");
    if (type.startsWith("text/") && charset >= 0) {
      String name =
          lower.substring(charset + "charset=".length()).split(";", 2)[0].replace("\"", "").strip();
      if (!name.equals("utf-8") && !name.equals("utf8")) {
        throw new HttpProblem(
            HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, "text values must be UTF-8, not " + name);
      }
    }
  }
}
