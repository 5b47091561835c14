package dev.larder.spring;

import dev.larder.Storage;
import java.time.Duration;
import org.springframework.util.unit.DataSize;

/**
 * One cache's settings, as the {@code larder.caches.<name>.*} properties give them. A cache
 * needs a bound ({@code maximum-memory} or {@code maximum-entries}; without either it gets
 * 64 MB) and a way to encode its keys and values: {@code key-type} and {@code value-type} (any
 * type Larder has a codec for: strings, numbers, records, enums, collections, ...). Values may
 * instead be any {@link java.io.Serializable} with {@code serialization=java}; keys always need
 * a type, because the cache compares keys by their bytes and Java serialization does not
 * promise equal bytes for equal objects. Java serialization is never chosen silently: it is
 * slower and larger than a typed codec.
 *
 * <p>Not thread-safe; Spring binds it once at start-up.
 */
public class CacheSpec {

  /** How values are encoded. */
  public enum Serialization {
    /** Values are encoded by the codec of {@code value-type}. */
    TYPED,
    /** Values are any {@link java.io.Serializable}, written by Java serialization. */
    JAVA
  }

  private DataSize maximumMemory;
  private Long maximumEntries;
  private Storage storage = Storage.OFF_HEAP;
  private Duration expireAfterWrite;
  private Duration expireAfterAccess;
  private String keyType;
  private String valueType;
  private Serialization serialization = Serialization.TYPED;
  private boolean allowNullValues = true;
  private boolean recordStats = true;
  private DataSize hotTier;

  /** @return the byte bound, or null */
  public DataSize getMaximumMemory() {
    return maximumMemory;
  }

  /** @param maximumMemory the byte bound, e.g. {@code 64MB} */
  public void setMaximumMemory(DataSize maximumMemory) {
    this.maximumMemory = maximumMemory;
  }

  /** @return the entry bound, or null */
  public Long getMaximumEntries() {
    return maximumEntries;
  }

  /** @param maximumEntries the entry bound */
  public void setMaximumEntries(Long maximumEntries) {
    this.maximumEntries = maximumEntries;
  }

  /** @return where pages live; off the heap by default */
  public Storage getStorage() {
    return storage;
  }

  /** @param storage {@code OFF_HEAP} or {@code HEAP} */
  public void setStorage(Storage storage) {
    this.storage = storage;
  }

  /** @return time to live after a write, or null */
  public Duration getExpireAfterWrite() {
    return expireAfterWrite;
  }

  /** @param expireAfterWrite time to live after a write, e.g. {@code 10m} */
  public void setExpireAfterWrite(Duration expireAfterWrite) {
    this.expireAfterWrite = expireAfterWrite;
  }

  /** @return time to live after the last read or write, or null */
  public Duration getExpireAfterAccess() {
    return expireAfterAccess;
  }

  /** @param expireAfterAccess time to live after the last read or write */
  public void setExpireAfterAccess(Duration expireAfterAccess) {
    this.expireAfterAccess = expireAfterAccess;
  }

  /** @return the keys' class name, or null */
  public String getKeyType() {
    return keyType;
  }

  /** @param keyType the keys' fully qualified class name */
  public void setKeyType(String keyType) {
    this.keyType = keyType;
  }

  /** @return the values' class name, or null */
  public String getValueType() {
    return valueType;
  }

  /** @param valueType the values' fully qualified class name */
  public void setValueType(String valueType) {
    this.valueType = valueType;
  }

  /** @return how keys and values are encoded */
  public Serialization getSerialization() {
    return serialization;
  }

  /** @param serialization {@code typed} (the default) or {@code java} */
  public void setSerialization(Serialization serialization) {
    this.serialization = serialization;
  }

  /** @return whether null results are cached (as Spring's null marker); true by default */
  public boolean isAllowNullValues() {
    return allowNullValues;
  }

  /** @param allowNullValues whether null results are cached */
  public void setAllowNullValues(boolean allowNullValues) {
    this.allowNullValues = allowNullValues;
  }

  /**
   * @return whether the cache records statistics; true by default, so that the metrics Boot
   *     binds are not all zero
   */
  public boolean isRecordStats() {
    return recordStats;
  }

  /** @param recordStats whether the cache records statistics */
  public void setRecordStats(boolean recordStats) {
    this.recordStats = recordStats;
  }

  /**
   * @return the bound of the cache's hot tier (decoded values of its most read entries, for
   *     immutable key and value types), or null for Larder's default: a tenth of the bound where
   *     the types allow one
   */
  public DataSize getHotTier() {
    return hotTier;
  }

  /** @param hotTier the hot tier's bound, e.g. {@code 8MB}; {@code 0} turns it off */
  public void setHotTier(DataSize hotTier) {
    this.hotTier = hotTier;
  }

  /** @return whether these settings say how to encode keys and values */
  boolean canEncode() {
    return keyType != null && (valueType != null || serialization == Serialization.JAVA);
  }
}
