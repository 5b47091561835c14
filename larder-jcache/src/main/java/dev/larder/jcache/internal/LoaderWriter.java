package dev.larder.jcache.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;

/**
 * A cache's loader and writer, with JCache's exception rules: a loader's failure reaches the caller
 * as a {@link CacheLoaderException}, a writer's as a {@link CacheWriterException} (either as
 * thrown, or wrapping another runtime exception). Batch writes and deletes report which items the
 * writer did not handle, since the cache must then apply only the others.
 */
final class LoaderWriter<K, V> {

  private final CacheLoader<K, V> loader;
  private final boolean readThrough;
  private final CacheWriter<K, V> writer;

  /**
   * @param loader the loader, or null
   * @param readThrough whether misses load
   * @param writer the writer if the cache is write-through, else null
   */
  LoaderWriter(CacheLoader<K, V> loader, boolean readThrough, CacheWriter<K, V> writer) {
    this.loader = loader;
    this.readThrough = readThrough && loader != null;
    this.writer = writer;
  }

  boolean hasLoader() {
    return loader != null;
  }

  boolean isReadThrough() {
    return readThrough;
  }

  boolean isWriteThrough() {
    return writer != null;
  }

  V load(K key) {
    try {
      return loader.load(key);
    } catch (CacheLoaderException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CacheLoaderException("loader failed for " + key, e);
    }
  }

  /** Returns the loaded values; never null. */
  Map<K, V> loadAll(List<K> keys) {
    try {
      Map<K, V> loaded = loader.loadAll(keys);
      return loaded == null ? Map.of() : loaded;
    } catch (CacheLoaderException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CacheLoaderException("loader failed", e);
    }
  }

  /** Writes one entry through, if write-through. */
  void write(K key, V value) {
    if (writer != null) {
      try {
        writer.write(new EntryView<>(key, value));
      } catch (RuntimeException e) {
        throw asWriterException(e);
      }
    }
  }

  /** Deletes one key through, if write-through. */
  void delete(K key) {
    if (writer != null) {
      try {
        writer.delete(key);
      } catch (RuntimeException e) {
        throw asWriterException(e);
      }
    }
  }

  /**
   * Writes the entries through; removes from {@code entries} those the writer did not write (those
   * it left in the batch, per {@link CacheWriter#writeAll}).
   *
   * @return the writer's failure, to throw once the written entries are stored; or null
   */
  CacheWriterException writeAll(Map<K, V> entries) {
    if (writer == null || entries.isEmpty()) {
      return null;
    }
    Collection<Cache.Entry<? extends K, ? extends V>> batch = new ArrayList<>();
    entries.forEach((k, v) -> batch.add(new EntryView<>(k, v)));
    CacheWriterException failure = null;
    try {
      writer.writeAll(batch);
    } catch (RuntimeException e) {
      failure = asWriterException(e);
    }
    for (Cache.Entry<? extends K, ? extends V> unwritten : batch) {
      entries.remove(unwritten.getKey());
    }
    return failure;
  }

  /**
   * Deletes the keys through; removes from {@code keys} those the writer did not delete.
   *
   * @return the writer's failure, to throw once the deleted keys are removed; or null
   */
  CacheWriterException deleteAll(List<K> keys) {
    if (writer == null || keys.isEmpty()) {
      return null;
    }
    List<K> undeleted = new ArrayList<>(keys);
    CacheWriterException failure = null;
    try {
      writer.deleteAll(undeleted);
    } catch (RuntimeException e) {
      failure = asWriterException(e);
    }
    keys.removeAll(undeleted);
    return failure;
  }

  /** Closes the loader and writer if they are closeable. */
  void close() {
    Closing.quietly(loader);
    Closing.quietly(writer);
  }

  private static CacheWriterException asWriterException(RuntimeException e) {
    return e instanceof CacheWriterException w ? w : new CacheWriterException(e);
  }
}
