package dev.larder.jcache.internal;

import javax.cache.Cache;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;

/**
 * Calls a {@link CacheWriter} and reports its failures as JCache requires: a
 * {@link CacheWriterException} as it is, any other runtime exception wrapped in one.
 */
final class WriterCalls {

  private WriterCalls() {}

  static <K, V> void write(CacheWriter<? super K, ? super V> writer,
      Cache.Entry<? extends K, ? extends V> entry) {
    try {
      writer.write(entry);
    } catch (RuntimeException e) {
      throw asWriterException(e);
    }
  }

  static void delete(CacheWriter<?, ?> writer, Object key) {
    try {
      writer.delete(key);
    } catch (RuntimeException e) {
      throw asWriterException(e);
    }
  }

  static CacheWriterException asWriterException(RuntimeException e) {
    return e instanceof CacheWriterException w ? w : new CacheWriterException(e);
  }
}
