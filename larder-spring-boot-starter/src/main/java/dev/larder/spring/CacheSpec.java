package dev.larder.spring;

import dev.larder.Storage;
import java.time.Duration;
import org.springframework.util.unit.DataSize;

/**
 * One cache's settings, as the {@code larder.caches.<name>.*} properties give them. A cache needs a
 * bound ({@code maximum-memory} or {@code maximum-entries}; without either it gets 64 MB) and a way
 * to encode its values: {@code value-type} (any type Larder has a codec for: strings, numbers,
 * records, enums, collections, ...), or any {@link java.io.Serializable} with {@code
 * serialization=java}. Keys are by default whatever {@code @Cacheable} makes, in the canonical
 * encoding of {@link SpringKeyCodec} ({@code key-type=java.lang.Object}); a {@code key-type} with a
 * codec of its own is more compact. Keys are never Java-serialized: the cache compares keys by
 * their bytes, and Java serialization does not promise equal bytes for equal objects. Java
 * serialization of values is never chosen silently: it is slower and larger than a typed codec.
 *
 * <p>Not thread-safe; Spring binds it once at start-up.
 */
public class CacheSpec {

  /** The key type when none is given: any key, in the canonical encoding of Spring keys. */
  static final String DEFAULT_KEY_TYPE = "java.lang.Object";

  /** How values are encoded. */
  public enum Serialization {
    /** Values are encoded by the codec of {@code value-type}. */
    TYPED,
    /** Values are any {@link java.io.Serializable}, written by Java serialization. */
    JAVA
  }

  // The field comments are the descriptions IDEs show (spring-configuration-metadata.json).

  /**
   * Byte bound of the cache, counting everything it reserves (pages, index, fragmentation): e.g.
   * 64MB. Without it or maximum-entries the bound is 64MB. Give one of the two.
   */
  private DataSize maximumMemory;

  /** Entry bound of the cache, instead of a byte bound. Give one of the two. */
  private Long maximumEntries;

  /** Where the cache's pages live: off-heap (outside the Java heap) or heap. */
  private Storage storage = Storage.OFF_HEAP;

  /** Entries expire this long after they were written, e.g. 10m. */
  private Duration expireAfterWrite;

  /**
   * Entries expire this long after they were last read or written, e.g. 30m; not together with
   * expire-after-write.
   */
  private Duration expireAfterAccess;

  /**
   * Class of the keys. The default, java.lang.Object, takes what @Cacheable's key generator makes
   * (SimpleKey for methods with no or several parameters) in a canonical encoding; a specific class
   * with a Larder codec (java.lang.Long, a record) is more compact.
   */
  private String keyType = DEFAULT_KEY_TYPE;

  /**
   * Class of the values: any type Larder has a codec for (strings, numbers, records, enums,
   * collections). Required unless serialization=java.
   */
  private String valueType;

  /** How values are encoded: typed (by value-type's codec) or java (any Serializable). */
  private Serialization serialization = Serialization.TYPED;

  /** Whether null results are cached (as Spring's null marker). */
  private boolean allowNullValues = true;

  /**
   * Whether the cache counts hits, misses, puts, evictions and latencies (Actuator's cache.* meters
   * and the MXBean read 0 without it).
   */
  private boolean recordStats = true;

  /**
   * Bound of the hot tier: the decoded values of the most read entries, kept for immutable value
   * types inside maximum-memory, e.g. 8MB; 0 turns it off. Without it, a tenth of the bound where
   * the types allow one.
   */
  private DataSize hotTier;

  /** Returns the byte bound, or null. */
  public DataSize getMaximumMemory() {
    return maximumMemory;
  }

  /**
   * Sets the byte bound.
   *
   * @param maximumMemory the byte bound, e.g. {@code 64MB}
   */
  public void setMaximumMemory(DataSize maximumMemory) {
    this.maximumMemory = maximumMemory;
  }

  /** Returns the entry bound, or null. */
  public Long getMaximumEntries() {
    return maximumEntries;
  }

  /**
   * Sets the entry bound (null: none).
   *
   * @param maximumEntries the entry bound
   */
  public void setMaximumEntries(Long maximumEntries) {
    this.maximumEntries = maximumEntries;
  }

  /** Returns where pages live; off the heap by default. */
  public Storage getStorage() {
    return storage;
  }

  /**
   * Sets where entries are stored.
   *
   * @param storage {@code OFF_HEAP} or {@code HEAP}
   */
  public void setStorage(Storage storage) {
    this.storage = storage;
  }

  /** Returns time to live after a write, or null. */
  public Duration getExpireAfterWrite() {
    return expireAfterWrite;
  }

  /**
   * Sets the time to live after a write.
   *
   * @param expireAfterWrite time to live after a write, e.g. {@code 10m}
   */
  public void setExpireAfterWrite(Duration expireAfterWrite) {
    this.expireAfterWrite = expireAfterWrite;
  }

  /** Returns time to live after the last read or write, or null. */
  public Duration getExpireAfterAccess() {
    return expireAfterAccess;
  }

  /**
   * Sets the time to live after the last access.
   *
   * @param expireAfterAccess time to live after the last read or write
   */
  public void setExpireAfterAccess(Duration expireAfterAccess) {
    this.expireAfterAccess = expireAfterAccess;
  }

  /** Returns the keys' class name; {@value #DEFAULT_KEY_TYPE} unless set. */
  public String getKeyType() {
    return keyType;
  }

  /**
   * Sets the keys' class.
   *
   * @param keyType the keys' fully qualified class name
   */
  public void setKeyType(String keyType) {
    this.keyType = keyType;
  }

  /** Returns the values' class name, or null. */
  public String getValueType() {
    return valueType;
  }

  /**
   * Sets the values' class.
   *
   * @param valueType the values' fully qualified class name
   */
  public void setValueType(String valueType) {
    this.valueType = valueType;
  }

  /** Returns how keys and values are encoded. */
  public Serialization getSerialization() {
    return serialization;
  }

  /**
   * Sets how values are serialized.
   *
   * @param serialization {@code typed} (the default) or {@code java}
   */
  public void setSerialization(Serialization serialization) {
    this.serialization = serialization;
  }

  /** Returns whether null results are cached (as Spring's null marker); true by default. */
  public boolean isAllowNullValues() {
    return allowNullValues;
  }

  /**
   * Sets whether null results are cached.
   *
   * @param allowNullValues whether null results are cached
   */
  public void setAllowNullValues(boolean allowNullValues) {
    this.allowNullValues = allowNullValues;
  }

  /**
   * Returns whether the cache records statistics; true by default, so that the metrics Boot binds
   * are not all zero.
   */
  public boolean isRecordStats() {
    return recordStats;
  }

  /**
   * Sets whether the cache records statistics.
   *
   * @param recordStats whether the cache records statistics
   */
  public void setRecordStats(boolean recordStats) {
    this.recordStats = recordStats;
  }

  /**
   * Returns the bound of the cache's hot tier (decoded values of its most read entries, for
   * immutable key and value types), or null for Larder's default: a tenth of the bound where the
   * types allow one.
   */
  public DataSize getHotTier() {
    return hotTier;
  }

  /**
   * Sets the hot tier's bound.
   *
   * @param hotTier the hot tier's bound, e.g. {@code 8MB}; {@code 0} turns it off
   */
  public void setHotTier(DataSize hotTier) {
    this.hotTier = hotTier;
  }

  /** Returns whether these settings say how to encode values (keys always have a type). */
  boolean canEncode() {
    return valueType != null || serialization == Serialization.JAVA;
  }
}
