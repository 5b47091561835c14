package dev.larder.spring;

import dev.larder.Cache;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.springframework.cache.support.AbstractValueAdaptingCache;

/**
 * A Spring {@link org.springframework.cache.Cache} backed by a Larder {@link Cache}. Null
 * results are cached as Spring's null marker when the cache allows them. Keys of the wrong type
 * fail with an {@link IllegalArgumentException} naming the cache and both types. Thread-safe, as
 * the Larder cache is; {@link #get(Object, Callable)} runs the loader once per key at a time.
 */
public final class LarderSpringCache extends AbstractValueAdaptingCache {

  private final String name;
  private final Cache<Object, Object> cache;
  private final Class<?> keyType;

  /**
   * @param name the cache's name
   * @param cache the Larder cache that holds the entries; closed by the cache manager
   * @param keyType the type every key must have ({@code Object} for Java-serialized keys)
   * @param allowNullValues whether null results are cached
   */
  public LarderSpringCache(String name, Cache<Object, Object> cache, Class<?> keyType,
      boolean allowNullValues) {
    super(allowNullValues);
    this.name = Objects.requireNonNull(name, "name");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.keyType = Objects.requireNonNull(keyType, "keyType");
  }

  @Override
  public String getName() {
    return name;
  }

  /** @return the Larder cache */
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
    Object stored = cache.get(checked(key), k -> {
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
      throw new IllegalArgumentException("cache '" + name + "' has keys of type "
          + keyType.getName() + " (larder.caches." + name + ".key-type), not "
          + key.getClass().getName() + ": " + key);
    }
    return key;
  }
}
