package dev.larder.spring;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import java.io.ObjectInputFilter;
import java.io.Serializable;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.cache.CacheManager;
import org.springframework.util.ClassUtils;

/**
 * A Spring {@link CacheManager} of Larder caches. The caches declared in
 * {@code larder.caches.*} are created when the manager is, so they exist (and Boot binds their
 * meters) from start-up; an undeclared name gets a cache on first use only if
 * {@code larder.defaults} says how to encode keys and values, and otherwise is unknown
 * ({@link #getCache} returns null, as the contract asks). Caches belong to their manager alone:
 * any number of managers, in any number of application contexts of one JVM, may declare caches
 * of the same name. {@link #destroy()} closes them. Thread-safe.
 */
public final class LarderCacheManager implements CacheManager, DisposableBean {

  private static final long DEFAULT_MAXIMUM_MEMORY = 64L << 20;

  private final ConcurrentHashMap<String, LarderSpringCache> caches = new ConcurrentHashMap<>();
  private final CacheSpec defaults;
  private final ClassLoader classLoader;

  /**
   * Creates every declared cache.
   *
   * @param properties the bound {@code larder.*} properties
   * @param classLoader loads {@code key-type} and {@code value-type} classes
   * @throws IllegalStateException if a declaration is incomplete or names an unknown class,
   *     with the property to fix in the message
   */
  public LarderCacheManager(LarderCacheProperties properties, ClassLoader classLoader) {
    this.defaults = properties.getDefaults();
    this.classLoader = classLoader;
    Map<String, LarderSpringCache> created = new LinkedHashMap<>();
    try {
      properties.getCaches().forEach((name, spec) -> created.put(name, create(name, spec,
          "larder.caches." + name)));
    } catch (RuntimeException e) {
      created.values().forEach(cache -> cache.getNativeCache().close());
      throw e;
    }
    caches.putAll(created);
  }

  @Override
  public org.springframework.cache.Cache getCache(String name) {
    LarderSpringCache cache = caches.get(name);
    if (cache != null || !defaults.canEncode()) {
      return cache;
    }
    return caches.computeIfAbsent(name, n -> create(n, defaults, "larder.defaults"));
  }

  @Override
  public Collection<String> getCacheNames() {
    return Collections.unmodifiableSet(caches.keySet());
  }

  /** Closes every cache; the manager is not to be used afterwards. */
  @Override
  public void destroy() {
    caches.values().forEach(cache -> cache.getNativeCache().close());
  }

  private LarderSpringCache create(String name, CacheSpec spec, String prefix) {
    if (!spec.canEncode()) {
      throw new IllegalStateException("cache '" + name + "' needs " + prefix + ".key-type and "
          + prefix + ".value-type (class names), or " + prefix + ".key-type and " + prefix
          + ".serialization=java for any Serializable value");
    }
    Class<?> keyType = load(spec.getKeyType(), prefix + ".key-type");
    Codec<?> keyCodec = codec(keyType, prefix + ".key-type");
    Class<?> valueType;
    Codec<?> valueCodec;
    if (spec.getSerialization() == CacheSpec.Serialization.JAVA) {
      valueType = Serializable.class;
      // Opted into by serialization=java. The bytes deserialized are only ever those this
      // process wrote into its own cache, so any class may come back.
      ObjectInputFilter anyClass = info -> ObjectInputFilter.Status.UNDECIDED;
      valueCodec = Codecs.javaSerialization(Serializable.class, anyClass);
    } else {
      valueType = load(spec.getValueType(), prefix + ".value-type");
      valueCodec = codec(valueType, prefix + ".value-type");
    }
    @SuppressWarnings("unchecked")
    CacheBuilder<Object, Object> builder = Cache.builder((Codec<Object>) keyCodec,
        new StoredValueCodec(name, valueType, valueCodec));
    if (spec.getMaximumEntries() != null) {
      builder.maximumEntries(spec.getMaximumEntries());
    } else {
      builder.maximumMemory(spec.getMaximumMemory() == null
          ? DEFAULT_MAXIMUM_MEMORY : spec.getMaximumMemory().toBytes());
    }
    builder.storage(spec.getStorage());
    if (spec.getExpireAfterWrite() != null) {
      builder.expireAfterWrite(spec.getExpireAfterWrite());
    }
    if (spec.getExpireAfterAccess() != null) {
      builder.expireAfterAccess(spec.getExpireAfterAccess());
    }
    if (spec.isRecordStats()) {
      builder.recordStats();
    }
    if (spec.getHotTier() != null) {
      builder.hotTier(spec.getHotTier().toBytes());
    }
    try {
      return new LarderSpringCache(name, builder.build(), keyType, spec.isAllowNullValues());
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IllegalStateException("cache '" + name + "' (" + prefix + "): " + e.getMessage(),
          e);
    }
  }

  private Class<?> load(String className, String property) {
    try {
      return ClassUtils.forName(className.strip(), classLoader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalStateException(property + "=" + className + ": no such class", e);
    }
  }

  private static Codec<?> codec(Class<?> type, String property) {
    try {
      return Codecs.forType(ClassUtils.resolvePrimitiveIfNecessary(type));
    } catch (RuntimeException e) {
      throw new IllegalStateException(property + "=" + type.getName() + ": " + e.getMessage(), e);
    }
  }
}
