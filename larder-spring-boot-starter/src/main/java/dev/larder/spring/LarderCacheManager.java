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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.cache.CacheManager;
import org.springframework.util.ClassUtils;

/**
 * A Spring {@link CacheManager} of Larder caches. The caches declared in {@code larder.caches.*},
 * and those named by {@code spring.cache.cache-names} (made from {@code larder.defaults}), are
 * created when the manager is, so they exist (and Boot binds their meters) from start-up. Without
 * {@code spring.cache.cache-names}, an undeclared name gets a cache on first use if {@code
 * larder.defaults} says how to encode values, and is otherwise unknown ({@link #getCache} returns
 * null, as the contract asks); with it, as Boot's own managers do, only the caches created at
 * start-up exist. Caches belong to their manager alone: any number of managers, in any number of
 * application contexts of one JVM, may declare caches of the same name (registered with JMX, they
 * need {@code spring.jmx.unique-names}). {@link #destroy()} closes them. Thread-safe.
 */
public final class LarderCacheManager implements CacheManager, DisposableBean {

  /** The byte bound of a cache given neither maximum-memory nor maximum-entries. */
  public static final long DEFAULT_MAXIMUM_MEMORY = 64L << 20;

  private static final Set<String> ANY_KEY_TYPES =
      Set.of(
          "java.lang.Object",
          "java.io.Serializable",
          "org.springframework.cache.interceptor.SimpleKey");

  private final ConcurrentHashMap<String, LarderSpringCache> caches = new ConcurrentHashMap<>();
  private final CacheSpec defaults;
  private final ClassLoader classLoader;
  private final boolean fixedNames;
  private final UnaryOperator<String> managementNames;

  /**
   * Creates every declared cache, with no fixed list of names and no JMX registration.
   *
   * @param properties the bound {@code larder.*} properties
   * @param classLoader loads {@code key-type} and {@code value-type} classes
   * @throws LarderConfigurationException if a declaration cannot make a cache, naming the property
   *     to fix
   */
  public LarderCacheManager(LarderCacheProperties properties, ClassLoader classLoader) {
    this(properties, classLoader, List.of(), null);
  }

  /**
   * Creates every declared cache and every cache named in {@code cacheNames}.
   *
   * @param properties the bound {@code larder.*} properties
   * @param classLoader loads {@code key-type} and {@code value-type} classes
   * @param cacheNames {@code spring.cache.cache-names}: caches to create at start-up (from {@code
   *     larder.defaults} unless declared), and then the only ones; empty for none
   * @param managementNames gives each cache's JMX name from its name, or null to register none with
   *     JMX
   * @throws LarderConfigurationException if a declaration cannot make a cache, naming the property
   *     to fix
   */
  public LarderCacheManager(
      LarderCacheProperties properties,
      ClassLoader classLoader,
      List<String> cacheNames,
      UnaryOperator<String> managementNames) {
    this.defaults = properties.getDefaults();
    this.classLoader = classLoader;
    this.fixedNames = !cacheNames.isEmpty();
    this.managementNames = managementNames;
    Map<String, LarderSpringCache> created = new LinkedHashMap<>();
    try {
      properties
          .getCaches()
          .forEach((name, spec) -> created.put(name, create(name, spec, "larder.caches." + name)));
      for (String name : cacheNames) {
        if (!created.containsKey(name)) {
          created.put(name, createNamed(name));
        }
      }
    } catch (RuntimeException e) {
      created.values().forEach(cache -> cache.getNativeCache().close());
      throw e;
    }
    caches.putAll(created);
  }

  @Override
  public org.springframework.cache.Cache getCache(String name) {
    LarderSpringCache cache = caches.get(name);
    if (cache != null || fixedNames || !defaults.canEncode()) {
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

  private LarderSpringCache createNamed(String name) {
    if (!defaults.canEncode()) {
      throw new LarderConfigurationException(
          "spring.cache.cache-names",
          "spring.cache.cache-names names cache '"
              + name
              + "', which larder.caches does not"
              + " declare, and larder.defaults does not say how to encode its values.",
          "Declare it (larder.caches."
              + name
              + ".value-type=<class of the values>), or give"
              + " every such cache its settings with larder.defaults.value-type=<class>"
              + " (or larder.defaults.serialization=java).",
          null);
    }
    return create(name, defaults, "larder.defaults");
  }

  private LarderSpringCache create(String name, CacheSpec spec, String prefix) {
    if (!spec.canEncode()) {
      throw new LarderConfigurationException(
          prefix + ".value-type",
          "cache '" + name + "' does not say how to encode its values.",
          "Set "
              + prefix
              + ".value-type=<class of the values> (any type with a Larder codec: a record, String,"
              + " Long, an enum, a List of them, ...), or "
              + prefix
              + ".serialization=java for any"
              + " Serializable value.",
          null);
    }
    String keyProperty = prefix + ".key-type";
    Class<?> keyType = load(name, spec.getKeyType(), keyProperty);
    Codec<?> keyCodec =
        ANY_KEY_TYPES.contains(keyType.getName())
            ? new SpringKeyCodec(name, keyProperty, classLoader)
            : codec(name, keyType, keyProperty);
    Class<?> valueType;
    Codec<?> valueCodec;
    if (spec.getSerialization() == CacheSpec.Serialization.JAVA) {
      valueType = Serializable.class;
      // Opted into by serialization=java. The bytes deserialized are only ever those this
      // process wrote into its own cache, so any class may come back.
      ObjectInputFilter anyClass = info -> ObjectInputFilter.Status.UNDECIDED;
      valueCodec = Codecs.javaSerialization(Serializable.class, anyClass);
    } else {
      valueType = load(name, spec.getValueType(), prefix + ".value-type");
      valueCodec = codec(name, valueType, prefix + ".value-type");
    }
    @SuppressWarnings("unchecked")
    CacheBuilder<Object, Object> builder =
        Cache.builder(
            (Codec<Object>) keyCodec, new StoredValueCodec(name, prefix, valueType, valueCodec));
    new CacheSpecBuilder(name, prefix, spec, builder).apply();
    if (managementNames != null) {
      builder.managementName(managementNames.apply(name));
    }
    if (spec.getHotTier() != null) {
      builder.hotTier(spec.getHotTier().toBytes());
    }
    return new LarderSpringCache(
        name, build(name, builder), keyType, spec.isAllowNullValues(), prefix);
  }

  private static Cache<Object, Object> build(String name, CacheBuilder<Object, Object> builder) {
    try {
      return builder.build();
    } catch (IllegalStateException e) {
      if (e.getMessage() != null && e.getMessage().contains("registered with JMX")) {
        throw new LarderConfigurationException(
            "spring.jmx.unique-names",
            "cache '" + name + "' cannot be registered with JMX: its name there is taken.",
            "Another application context in this JVM has a cache of that name: set"
                + " spring.jmx.unique-names=true (each context's caches get their own JMX"
                + " names), or spring.jmx.enabled=false.",
            e);
      }
      throw new LarderConfigurationException(
          "larder.caches." + name,
          "cache '" + name + "' cannot be built: " + e.getMessage() + ".",
          "Check larder.caches." + name + ".* against docs/spring.md.",
          e);
    }
  }

  private Class<?> load(String cacheName, String className, String property) {
    try {
      return ClassUtils.forName(className.strip(), classLoader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new LarderConfigurationException(
          property,
          "cache '" + cacheName + "': " + property + "=" + className + ": no such class.",
          "Set "
              + property
              + " to the fully qualified name of a class on the application's class path"
              + " (e.g. com.example.Book).",
          e);
    }
  }

  private static Codec<?> codec(String cacheName, Class<?> type, String property) {
    try {
      return Codecs.forType(ClassUtils.resolvePrimitiveIfNecessary(type));
    } catch (RuntimeException e) {
      throw new LarderConfigurationException(
          property,
          "cache '"
              + cacheName
              + "': "
              + property
              + "="
              + type.getName()
              + ": "
              + e.getMessage()
              + ".",
          property.endsWith("key-type")
              ? "Remove "
                  + property
                  + " (keys then take any type @Cacheable makes), or name a"
                  + " type Larder has a codec for (a record, String, Long, UUID, an enum)."
              : "Name a type Larder has a codec for (a record, String, Long, an enum, a List of"
                  + " them), or set the cache's serialization=java for a Serializable type.",
          e);
    }
  }
}
