package dev.larder.spring;

import dev.larder.Cache;
import dev.larder.metrics.LarderCacheMetrics;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.springframework.cache.support.AbstractValueAdaptingCache;

/**
 * A Spring {@link org.springframework.cache.Cache} backed by a Larder {@link Cache}. Null results
 * are cached as Spring's null marker when the cache allows them. Keys of the wrong type fail with
 * an {@link IllegalArgumentException} naming the cache and both types. Thread-safe, as the Larder
 * cache is; {@link #get(Object, Callable)} runs the loader once per key at a time.
 */
public final class LarderSpringCache extends AbstractValueAdaptingCache {

  private final String name;
  private final Cache<Object, Object> cache;
  private final Class<?> keyType;
  private final String properties;

  /**
   * A cache declared under {@code larder.caches.<name>}.
   *
   * @param name the cache's name
   * @param cache the Larder cache that holds the entries; closed by the cache manager
   * @param keyType the type every key must have ({@code Object} for any key)
   * @param allowNullValues whether null results are cached
   */
  public LarderSpringCache(
      String name, Cache<Object, Object> cache, Class<?> keyType, boolean allowNullValues) {
    this(name, cache, keyType, allowNullValues, "larder.caches." + name);
  }

  /**
   * @param name the cache's name
   * @param cache the Larder cache that holds the entries; closed by the cache manager
   * @param keyType the type every key must have ({@code Object} for any key)
   * @param allowNullValues whether null results are cached
   * @param properties the prefix of the properties that configured it, for messages ({@code
   *     larder.caches.<name>} or {@code larder.defaults})
   */
  public LarderSpringCache(
      String name,
      Cache<Object, Object> cache,
      Class<?> keyType,
      boolean allowNullValues,
      String properties) {
    super(allowNullValues);
    this.name = Objects.requireNonNull(name, "name");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.keyType = Objects.requireNonNull(keyType, "keyType");
    this.properties = Objects.requireNonNull(properties, "properties");
  }

  /**
   * The binder Boot's cache metrics use for a Larder cache; its warning about a cache without
   * statistics names the property that turns them on.
   *
   * @param cache the cache
   * @param tags Boot's tags for its meters
   * @return the binder
   */
  static MeterBinder meterBinder(LarderSpringCache cache, Iterable<Tag> tags) {
    return new LarderCacheMetrics(
        cache.getNativeCache(),
        cache.getName(),
        tags,
        "set " + cache.properties + ".record-stats=true");
  }

  @Override
  public String getName() {
    return name;
  }

  /** Returns the Larder cache. */
  @Override
  public Cache<Object, Object> getNativeCache() {
    return cache;
  }

  @Override
  protected Object lookup(Object key) {
    return cache.getIfPresent(checked(key));
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> T get(Object key, Callable<T> valueLoader) {
    Object stored =
        cache.get(
            checked(key),
            k -> {
              try {
                return toStoreValue(valueLoader.call());
              } catch (Exception e) {
                throw new ValueRetrievalException(key, valueLoader, e);
              }
            });
    return (T) fromStoreValue(stored);
  }

  @Override
  public void put(Object key, Object value) {
    cache.put(checked(key), toStoreValue(value));
  }

  @Override
  public ValueWrapper putIfAbsent(Object key, Object value) {
    Object previous = cache.putIfAbsent(checked(key), toStoreValue(value));
    return toValueWrapper(previous);
  }

  @Override
  public void evict(Object key) {
    cache.invalidate(checked(key));
  }

  @Override
  public boolean evictIfPresent(Object key) {
    return cache.remove(checked(key)) != null;
  }

  @Override
  public void clear() {
    cache.invalidateAll();
  }

  @Override
  public boolean invalidate() {
    boolean had = cache.estimatedSize() > 0;
    cache.invalidateAll();
    return had;
  }

  private Object checked(Object key) {
    Objects.requireNonNull(key, "key");
    if (!keyType.isInstance(key)) {
      throw new IllegalArgumentException(
          "cache '"
              + name
              + "' has keys of type "
              + keyType.getName()
              + " ("
              + properties
              + ".key-type), not "
              + key.getClass().getName()
              + ": "
              + key);
    }
    return key;
  }
}
