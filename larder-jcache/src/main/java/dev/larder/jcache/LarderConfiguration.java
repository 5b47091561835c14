package dev.larder.jcache;

import dev.larder.Storage;
import dev.larder.codec.Codec;
import java.util.Objects;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;

/**
 * A JCache {@link MutableConfiguration} with Larder's own settings: the memory bound, where pages
 * live, and the codecs that turn keys and values into bytes.
 *
 * <p>Defaults: no bound (the cache never evicts, as JCache caches do by default), off-heap pages,
 * and codecs chosen from the key and value types: a built-in codec when the declared type has one
 * ({@code String}, {@code Long}, {@code Integer}, {@code byte[]}), otherwise Java serialization.
 * The bounds, the storage and the codecs apply to store-by-value caches only: a store-by-reference
 * cache keeps the caller's objects in a heap map, unbounded, and ignores them.
 *
 * <p>Like its superclass, this class is not thread-safe; a cache copies its configuration when it
 * is created, so changing one afterwards has no effect on the cache.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class LarderConfiguration<K, V> extends MutableConfiguration<K, V> {

  private static final long serialVersionUID = 1L;

  /** Value of the bound settings that means "not bounded". */
  public static final long UNBOUNDED = -1;

  private long maximumMemory = UNBOUNDED;
  private long maximumEntries = UNBOUNDED;
  private Storage storage = Storage.OFF_HEAP;
  private transient Codec<K> keyCodec;
  private transient Codec<V> valueCodec;

  /** Creates a configuration with the JCache and Larder defaults. */
  public LarderConfiguration() {}

  /**
   * Copies a configuration; Larder settings are copied too when it is a LarderConfiguration.
   *
   * @param configuration the configuration to copy, not null
   */
  public LarderConfiguration(CompleteConfiguration<K, V> configuration) {
    super(configuration);
    if (configuration instanceof LarderConfiguration<K, V> larder) {
      copyLarderSettings(larder);
    }
  }

  /**
   * Copies any configuration: a {@link CompleteConfiguration} entirely, a plain {@link
   * Configuration} by its types and store-by-value flag (as JCache requires).
   *
   * @param configuration the configuration, not null
   * @param <K> key type
   * @param <V> value type
   * @return a new, independent configuration
   */
  public static <K, V> LarderConfiguration<K, V> copyOf(Configuration<K, V> configuration) {
    Objects.requireNonNull(configuration, "configuration");
    if (configuration instanceof CompleteConfiguration<K, V> complete) {
      return new LarderConfiguration<>(complete);
    }
    LarderConfiguration<K, V> copy = new LarderConfiguration<>();
    copy.setTypes(configuration.getKeyType(), configuration.getValueType());
    copy.setStoreByValue(configuration.isStoreByValue());
    return copy;
  }

  private void copyLarderSettings(LarderConfiguration<K, V> other) {
    maximumMemory = other.maximumMemory;
    maximumEntries = other.maximumEntries;
    storage = other.storage;
    keyCodec = other.keyCodec;
    valueCodec = other.valueCodec;
  }

  /** Returns the memory bound in bytes, or {@link #UNBOUNDED}. */
  public long getMaximumMemory() {
    return maximumMemory;
  }

  /**
   * Bounds the cache by the bytes its store reserves (pages, index, policy metadata); the least
   * valuable entries are evicted to stay under it. Clears any entry bound.
   *
   * @param bytes at least 65536, or {@link #UNBOUNDED}
   * @return this configuration
   * @throws IllegalArgumentException if positive but below 65536, or negative but not UNBOUNDED
   */
  public LarderConfiguration<K, V> setMaximumMemory(long bytes) {
    if (bytes != UNBOUNDED && bytes < 64 * 1024) {
      throw new IllegalArgumentException("maximumMemory must be at least 65536 bytes: " + bytes);
    }
    maximumMemory = bytes;
    if (bytes != UNBOUNDED) {
      maximumEntries = UNBOUNDED;
    }
    return this;
  }

  /** Returns the entry bound, or {@link #UNBOUNDED}. */
  public long getMaximumEntries() {
    return maximumEntries;
  }

  /**
   * Bounds the cache by its number of entries. Clears any memory bound.
   *
   * @param entries positive, or {@link #UNBOUNDED}
   * @return this configuration
   * @throws IllegalArgumentException if zero or negative but not UNBOUNDED
   */
  public LarderConfiguration<K, V> setMaximumEntries(long entries) {
    if (entries != UNBOUNDED && entries <= 0) {
      throw new IllegalArgumentException("maximumEntries must be positive: " + entries);
    }
    maximumEntries = entries;
    if (entries != UNBOUNDED) {
      maximumMemory = UNBOUNDED;
    }
    return this;
  }

  /** Returns where a store-by-value cache keeps its pages. */
  public Storage getStorage() {
    return storage;
  }

  /**
   * Returns this configuration.
   *
   * @param storage off-heap (default) or heap-backed pages, not null
   */
  public LarderConfiguration<K, V> setStorage(Storage storage) {
    this.storage = Objects.requireNonNull(storage, "storage");
    return this;
  }

  /** Returns the key codec, or null to choose one from the key type. */
  public Codec<K> getKeyCodec() {
    return keyCodec;
  }

  /**
   * The key codec defines key identity: two keys are the same key when their bytes are equal. Not
   * serialized with the configuration.
   *
   * @param codec the codec, or null to choose one from the key type
   * @return this configuration
   */
  public LarderConfiguration<K, V> setKeyCodec(Codec<K> codec) {
    this.keyCodec = codec;
    return this;
  }

  /** Returns the value codec, or null to choose one from the value type. */
  public Codec<V> getValueCodec() {
    return valueCodec;
  }

  /**
   * Not serialized with the configuration.
   *
   * @param codec the codec, or null to choose one from the value type
   * @return this configuration
   */
  public LarderConfiguration<K, V> setValueCodec(Codec<V> codec) {
    this.valueCodec = codec;
    return this;
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof LarderConfiguration<?, ?> that) || !super.equals(other)) {
      return false;
    }
    return maximumMemory == that.maximumMemory
        && maximumEntries == that.maximumEntries
        && storage == that.storage
        && Objects.equals(keyCodec, that.keyCodec)
        && Objects.equals(valueCodec, that.valueCodec);
  }

  @Override
  public int hashCode() {
    return 31 * super.hashCode() + Objects.hash(maximumMemory, maximumEntries, storage);
  }
}
