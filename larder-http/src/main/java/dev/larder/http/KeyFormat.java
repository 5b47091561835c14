package dev.larder.http;

import java.util.Objects;

/**
 * The string form of a cache's keys, as they appear in the last segment of {@code
 * /api/caches/{name}/entries/{key}} (after percent-decoding) and in the key browser ({@code
 * /api/caches/{name}/keys}), both ways: {@link #parse} reads a key, {@link #format} writes one, and
 * {@code parse(format(k))} equals {@code k}.
 *
 * <p>Implementations must be thread-safe and stateless; {@link #parse} throws {@link
 * IllegalArgumentException} for a string that is not a key, which the endpoint answers with 400 Bad
 * Request and the exception's message.
 *
 * @param <K> the key type
 */
@FunctionalInterface
public interface KeyFormat<K> {

  /**
   * Returns the key.
   *
   * @param text the decoded path segment, never null
   * @throws IllegalArgumentException if {@code text} is not a valid key
   */
  K parse(String text);

  /**
   * Returns its text, which {@link #parse} reads back; by default {@code String.valueOf(key)},
   * right for strings and numbers.
   *
   * @param key a key of the cache, never null
   */
  default String format(K key) {
    return String.valueOf(key);
  }

  /** Returns keys that are the path segment itself. */
  static KeyFormat<String> strings() {
    return text -> Objects.requireNonNull(text, "text");
  }

  /** Returns keys that are decimal {@code long}s, e.g. {@code 42} or {@code -7}. */
  static KeyFormat<Long> longs() {
    return text -> {
      try {
        return Long.valueOf(text);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("key '" + text + "' is not a decimal long", e);
      }
    };
  }
}
