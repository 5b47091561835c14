package dev.larder.bench.peer;

import dev.larder.codec.Codec;
import dev.larder.codec.ValueDictionary;
import java.util.Objects;

/**
 * What a scenario asks of a cache: its types, how to encode values that are not bytes, its bound,
 * and sizing hints that some peers require up front.
 *
 * @param keyType {@code String.class} or {@code Long.class}
 * @param valueType any type; off-heap peers store non-byte[] values as the bytes of {@code
 *     valueCodec}
 * @param valueCodec encodes values for stores that hold bytes
 * @param maxEntries the entry bound, or 0 for none (then {@code maxBytes} or unbounded)
 * @param maxBytes the byte bound for stores bounded by bytes, or 0 for none
 * @param expectedEntries how many entries will be stored (for peers that size up front)
 * @param averageKeyBytes the average encoded key size
 * @param averageValueBytes the average encoded value size
 * @param dictionary the value-substitution dictionary {@code valueCodec} uses, or null; Larder
 *     counts it in its memory
 * @param <K> key type
 * @param <V> value type
 */
public record CacheSpec<K, V>(
    Class<K> keyType,
    Class<V> valueType,
    Codec<V> valueCodec,
    long maxEntries,
    long maxBytes,
    long expectedEntries,
    int averageKeyBytes,
    int averageValueBytes,
    ValueDictionary dictionary) {

  /** Checks the arguments. */
  public CacheSpec {
    Objects.requireNonNull(keyType, "keyType");
    Objects.requireNonNull(valueType, "valueType");
    Objects.requireNonNull(valueCodec, "valueCodec");
    if (keyType != String.class && keyType != Long.class) {
      throw new IllegalArgumentException("keys are String or Long: " + keyType);
    }
    if (expectedEntries <= 0 || averageKeyBytes <= 0 || averageValueBytes <= 0) {
      throw new IllegalArgumentException("sizing hints must be positive");
    }
  }

  /**
   * A spec whose value codec substitutes through no dictionary.
   *
   * @param keyType key class
   * @param valueType value class
   * @param valueCodec value codec
   * @param maxEntries entry bound or 0
   * @param maxBytes byte bound or 0
   * @param expectedEntries expected entries
   * @param averageKeyBytes average key size
   * @param averageValueBytes average value size
   */
  public CacheSpec(
      Class<K> keyType,
      Class<V> valueType,
      Codec<V> valueCodec,
      long maxEntries,
      long maxBytes,
      long expectedEntries,
      int averageKeyBytes,
      int averageValueBytes) {
    this(
        keyType,
        valueType,
        valueCodec,
        maxEntries,
        maxBytes,
        expectedEntries,
        averageKeyBytes,
        averageValueBytes,
        null);
  }

  /** Returns true if the cache must never evict (memory and overhead scenarios). */
  public boolean unbounded() {
    return maxEntries == 0 && maxBytes == 0;
  }

  /**
   * Returns the entry bound for stores bounded by count: {@code maxEntries}, else {@code maxBytes}
   * divided by the average entry, else twice the expected entries (effectively unbounded).
   */
  public long entryBound() {
    if (maxEntries > 0) {
      return maxEntries;
    }
    if (maxBytes > 0) {
      return Math.max(1, maxBytes / (averageKeyBytes + (long) averageValueBytes));
    }
    return 2 * expectedEntries;
  }

  /** Returns the expected payload: entries times average key and value size. */
  public long expectedPayloadBytes() {
    return expectedEntries * (averageKeyBytes + (long) averageValueBytes);
  }

  /**
   * A byte budget for stores that can only be bounded in bytes: {@code maxBytes} if set, else the
   * entry bound times the average entry plus {@code perEntryAllowance}, else (unbounded) enough for
   * the expected entries with that allowance plus 8 MiB of slack.
   *
   * @param perEntryAllowance the store's overhead per entry, roughly
   * @return bytes
   */
  public long byteBudget(int perEntryAllowance) {
    if (maxBytes > 0) {
      return maxBytes;
    }
    long perEntry = averageKeyBytes + (long) averageValueBytes + perEntryAllowance;
    if (maxEntries > 0) {
      return maxEntries * perEntry;
    }
    return expectedEntries * perEntry + (8L << 20);
  }
}
