package dev.larder.jcache.internal;

import dev.larder.jcache.LarderConfiguration;
import java.lang.ref.WeakReference;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.spi.CachingProvider;

/**
 * A JCache {@link CacheManager}: the caches of one (URI, class loader) pair, plus the configuration
 * file its URI addresses, if any.
 *
 * <p>Caches the file declares are created on first {@link #getCache(String)}, from the file's
 * defaults and their own settings, or with the manager when their {@code createAtStartup} setting
 * is true. The file's settings are all applied (and so checked) when the manager is created. A
 * cache created in code with a plain JCache configuration is completed by the file: every setting
 * the file gives for its name, or as a default, overrides the configuration (so an operator's file
 * governs caches that frameworks create in code). A {@link LarderConfiguration} passed in code is
 * used as it is.
 *
 * <p>Thread-safe: the cache table is a concurrent map read without locking; creation is serialized,
 * so a name is created once.
 */
public final class LarderCacheManager implements CacheManager {

  private static final System.Logger LOG = System.getLogger("dev.larder.jcache");

  private final CachingProvider provider;
  private final ManagerRegistry registry;
  private final URI uri;
  private final WeakReference<ClassLoader> classLoader;
  private final Properties properties;
  private final FileConfiguration file;

  /** The names of the caches the file declares, whose settings were checked at creation. */
  private final Set<String> declared;

  private final ConcurrentMap<String, LarderJCache<?, ?>> caches = new ConcurrentHashMap<>();

  /**
   * Serializes cache creation, which is rare; creation runs user factories (loaders, listeners), so
   * it must not run inside a map's compute function, where a callback into this manager would fail.
   */
  private final Object creation = new Object();

  private volatile boolean closed;

  LarderCacheManager(
      CachingProvider provider,
      ManagerRegistry registry,
      URI uri,
      ClassLoader classLoader,
      Properties properties) {
    this.provider = provider;
    this.registry = registry;
    this.uri = uri;
    this.classLoader = new WeakReference<>(classLoader);
    this.properties = new Properties();
    this.properties.putAll(properties);
    this.file = ConfigurationSource.load(uri, classLoader);
    this.declared = checkedCacheNames(file, classLoader);
    createAtStartup();
  }

  /**
   * Creates the declared caches marked {@code createAtStartup}, so that frameworks that list the
   * caches once at start-up (Spring Boot's metrics) see them. If one fails, those already created
   * are closed and the manager's creation fails.
   */
  private void createAtStartup() {
    try {
      for (String name : file.cachesCreatedAtStartup()) {
        caches.put(name, createDeclared(name));
      }
    } catch (RuntimeException | Error e) {
      List<LarderJCache<?, ?>> created = new ArrayList<>(caches.values());
      caches.clear();
      created.forEach(LarderJCache::close);
      throw e;
    }
  }

  /**
   * Applies the file's settings once at start-up, so that a bad value fails the manager's creation
   * (naming the file and the line) rather than the first use of a cache.
   */
  private static Set<String> checkedCacheNames(FileConfiguration file, ClassLoader classLoader) {
    FileSettingsApplier.forDefaults(classLoader, file)
        .apply(file.defaults(), new LarderConfiguration<>());
    for (String name : file.cacheNames()) {
      FileSettingsApplier.forCache(classLoader, file, name)
          .apply(file.settingsFor(name), new LarderConfiguration<>());
    }
    return Set.copyOf(file.cacheNames());
  }

  @Override
  public CachingProvider getCachingProvider() {
    return provider;
  }

  @Override
  public URI getURI() {
    return uri;
  }

  @Override
  public ClassLoader getClassLoader() {
    return classLoader.get();
  }

  @Override
  public Properties getProperties() {
    return properties;
  }

  @Override
  public <K, V, C extends Configuration<K, V>> Cache<K, V> createCache(
      String cacheName, C configuration) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cacheName");
    Objects.requireNonNull(configuration, "configuration");
    LarderConfiguration<K, V> effective = withFileSettings(cacheName, configuration);
    synchronized (creation) {
      if (caches.containsKey(cacheName)) {
        throw new CacheException(
            "a cache named "
                + cacheName
                + " already exists"
                + (file.cachesCreatedAtStartup().contains(cacheName)
                    ? ": "
                        + file.source()
                        + " declares it with createAtStartup = true, so the"
                        + " manager created it; use getCache(\""
                        + cacheName
                        + "\") (with Spring"
                        + " Boot, do not list it in spring.cache.cache-names)"
                    : ""));
      }
      LarderJCache<K, V> cache = LarderJCache.create(this, cacheName, effective);
      caches.put(cacheName, cache);
      if (!(configuration instanceof LarderConfiguration)) {
        warnIfUnmetered(cacheName, effective);
      }
      return cache;
    }
  }

  @SuppressWarnings("unchecked")
  private <K, V> LarderConfiguration<K, V> withFileSettings(
      String cacheName, Configuration<K, V> configuration) {
    LarderConfiguration<K, V> copy = LarderConfiguration.copyOf(configuration);
    if (!(configuration instanceof LarderConfiguration)) {
      FileSettingsApplier.forCache(getClassLoader(), file, cacheName)
          .apply(file.settingsFor(cacheName), (LarderConfiguration<Object, Object>) copy);
    }
    return copy;
  }

  @Override
  public <K, V> Cache<K, V> getCache(String cacheName, Class<K> keyType, Class<V> valueType) {
    requireOpen();
    Objects.requireNonNull(keyType, "keyType");
    Objects.requireNonNull(valueType, "valueType");
    Cache<K, V> cache = getCache(cacheName);
    if (cache == null) {
      return null;
    }
    @SuppressWarnings("unchecked")
    CompleteConfiguration<K, V> config = cache.getConfiguration(CompleteConfiguration.class);
    if (!config.getKeyType().equals(keyType)) {
      throw new ClassCastException(
          "cache "
              + cacheName
              + " has keys of type "
              + config.getKeyType().getName()
              + ", not "
              + keyType.getName());
    }
    if (!config.getValueType().equals(valueType)) {
      throw new ClassCastException(
          "cache "
              + cacheName
              + " has values of type "
              + config.getValueType().getName()
              + ", not "
              + valueType.getName());
    }
    return cache;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> Cache<K, V> getCache(String cacheName) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cacheName");
    LarderJCache<?, ?> cache = caches.get(cacheName);
    if (cache == null && declared.contains(cacheName)) {
      synchronized (creation) {
        cache = caches.get(cacheName);
        if (cache == null) {
          cache = createDeclared(cacheName);
          caches.put(cacheName, cache);
        }
      }
    }
    return (Cache<K, V>) cache;
  }

  private LarderJCache<?, ?> createDeclared(String cacheName) {
    // Built afresh rather than copied from the start-up check, so that each cache gets codec,
    // loader and writer instances of its own, as before.
    LarderConfiguration<Object, Object> config = new LarderConfiguration<>();
    FileSettingsApplier.forCache(getClassLoader(), file, cacheName)
        .apply(file.settingsFor(cacheName), config);
    LarderJCache<?, ?> cache = LarderJCache.create(this, cacheName, config);
    warnIfUnmetered(cacheName, config);
    return cache;
  }

  /**
   * Says once per cache creation that a cache configured by the file counts nothing, when the file
   * does not say so itself: Micrometer's cache meters read JCache statistics, which are off by
   * default, and stay at 0 without a word otherwise. Managers without a file (the TCK's) and caches
   * whose file sets statistics either way are silent.
   */
  private void warnIfUnmetered(String cacheName, LarderConfiguration<?, ?> config) {
    if (file != FileConfiguration.EMPTY
        && !config.isStatisticsEnabled()
        && !file.settingsFor(cacheName).containsKey(FileSetting.STATISTICS)) {
      LOG.log(
          System.Logger.Level.WARNING,
          "cache ''{0}'' of cache manager {1}: statistics are"
              + " off, so its JCache statistics and the Micrometer cache meters read from them stay"
              + " at 0; set cache.{0}.statistics (or default.statistics) in {2} to true to count, or"
              + " to false to silence this warning",
          cacheName,
          uri,
          file.source());
    }
  }

  @Override
  public Iterable<String> getCacheNames() {
    requireOpen();
    return Set.copyOf(caches.keySet());
  }

  @Override
  public void destroyCache(String cacheName) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cacheName");
    LarderJCache<?, ?> cache = caches.get(cacheName);
    if (cache != null) {
      cache.clear();
      cache.close();
    }
  }

  @Override
  public void enableManagement(String cacheName, boolean enabled) {
    requireOpen();
    LarderJCache<?, ?> cache = caches.get(Objects.requireNonNull(cacheName, "cacheName"));
    if (cache != null) {
      cache.setManagementEnabled(enabled);
    }
  }

  @Override
  public void enableStatistics(String cacheName, boolean enabled) {
    requireOpen();
    LarderJCache<?, ?> cache = caches.get(Objects.requireNonNull(cacheName, "cacheName"));
    if (cache != null) {
      cache.setStatisticsEnabled(enabled);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    registry.release(this);
    List<LarderJCache<?, ?>> open = new ArrayList<>(caches.values());
    caches.clear();
    for (LarderJCache<?, ?> cache : open) {
      cache.close();
    }
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    if (type.isAssignableFrom(getClass())) {
      return type.cast(this);
    }
    throw new IllegalArgumentException("cannot unwrap a cache manager to " + type.getName());
  }

  /** Called by a closing cache so that its name can be used again. */
  void release(LarderJCache<?, ?> cache) {
    caches.remove(cache.getName(), cache);
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("cache manager " + uri + " is closed");
    }
  }
}
