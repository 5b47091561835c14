package dev.larder.tx;

import dev.larder.CacheBuilder;
import dev.larder.codec.Codec;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Declares one cache of a {@link TxStore}: its name, its codecs and how its store is bounded.
 * Immutable.
 *
 * @param name the cache's name, unique in its store; written to the store's directory, so a
 *     reopened store must declare its caches under the same names
 * @param keyCodec encodes keys (must be deterministic: keys are found by their bytes)
 * @param valueCodec encodes values
 * @param settings applied to the underlying byte cache's builder (memory bound, expiry, segments,
 *     statistics); must not set a loader. With no bound set here the cache is unbounded, the right
 *     default for a cache that is the durable home of its data. Eviction and expiry forget entries
 *     as they would in any cache; see {@link TxStore} for what transactions see then.
 * @param <K> key type
 * @param <V> value type
 */
public record TxCacheSpec<K, V>(
    String name,
    Codec<K> keyCodec,
    Codec<V> valueCodec,
    Consumer<CacheBuilder<byte[], byte[]>> settings) {

  /** Checks for nulls and a usable name. */
  public TxCacheSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(keyCodec, "keyCodec");
    Objects.requireNonNull(valueCodec, "valueCodec");
    Objects.requireNonNull(settings, "settings");
    if (name.isBlank() || name.contains("\n")) {
      throw new IllegalArgumentException(
          "cache name must be non-blank and one line: '" + name + "'");
    }
    if (!keyCodec.deterministic()) {
      throw new IllegalArgumentException("key codec of cache " + name + " is not deterministic");
    }
  }

  /**
   * Returns a spec with the core cache's default settings.
   *
   * @param name the cache's name
   * @param keyCodec key codec
   * @param valueCodec value codec
   * @param <K> key type
   * @param <V> value type
   */
  public static <K, V> TxCacheSpec<K, V> of(String name, Codec<K> keyCodec, Codec<V> valueCodec) {
    return new TxCacheSpec<>(name, keyCodec, valueCodec, b -> {});
  }

  /**
   * Returns a copy with them.
   *
   * @param more settings for the underlying cache's builder
   */
  public TxCacheSpec<K, V> with(Consumer<CacheBuilder<byte[], byte[]>> more) {
    return new TxCacheSpec<>(name, keyCodec, valueCodec, settings.andThen(more));
  }
}
