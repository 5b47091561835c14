package dev.larder.jcache;

import dev.larder.jcache.internal.ManagerRegistry;
import java.net.URI;
import java.util.Properties;
import javax.cache.CacheManager;
import javax.cache.configuration.OptionalFeature;
import javax.cache.spi.CachingProvider;

/**
 * Larder's JCache provider, found by {@link javax.cache.Caching} through the service loader.
 *
 * <p><b>Managers.</b> One {@link CacheManager} exists per (URI, class loader) pair until it is
 * closed. The URI names the manager and may address a configuration file (format: the module
 * README, "Configuration file"): {@code classpath:path/file.properties}, or any absolute URL such
 * as {@code file:/etc/app/larder.properties}; the default URI {@value #DEFAULT_URI} reads {@value
 * #DEFAULT_RESOURCE} from the class path when it exists. Other URIs carry no file.
 *
 * <p><b>Optional features.</b> Store-by-reference is supported (the entries then stay on the heap
 * as the caller's objects).
 *
 * <p>Thread-safe.
 */
public final class LarderCachingProvider implements CachingProvider {

  /** The URI of the default cache manager. */
  public static final String DEFAULT_URI = "larder:default";

  /** The class path resource the default manager reads its configuration from, if present. */
  public static final String DEFAULT_RESOURCE = "larder-jcache.properties";

  private final ManagerRegistry registry = new ManagerRegistry(this);

  /** Created by the service loader; applications use {@link javax.cache.Caching}. */
  public LarderCachingProvider() {}

  @Override
  public CacheManager getCacheManager(URI uri, ClassLoader classLoader, Properties properties) {
    URI managerUri = uri == null ? getDefaultURI() : uri;
    ClassLoader loader = classLoader == null ? getDefaultClassLoader() : classLoader;
    Properties props = properties == null ? new Properties() : properties;
    return registry.getOrCreate(managerUri, loader, props);
  }

  @Override
  public ClassLoader getDefaultClassLoader() {
    // Stable, so that getCacheManager() returns the same manager from any thread; codecs that
    // deserialize fall back to the thread's context loader for classes this one cannot see.
    return LarderCachingProvider.class.getClassLoader();
  }

  @Override
  public URI getDefaultURI() {
    return URI.create(DEFAULT_URI);
  }

  @Override
  public Properties getDefaultProperties() {
    return new Properties();
  }

  @Override
  public CacheManager getCacheManager(URI uri, ClassLoader classLoader) {
    return getCacheManager(uri, classLoader, getDefaultProperties());
  }

  @Override
  public CacheManager getCacheManager() {
    return getCacheManager(getDefaultURI(), getDefaultClassLoader(), getDefaultProperties());
  }

  @Override
  public void close() {
    registry.closeAll();
  }

  @Override
  public void close(ClassLoader classLoader) {
    registry.close(classLoader == null ? getDefaultClassLoader() : classLoader);
  }

  @Override
  public void close(URI uri, ClassLoader classLoader) {
    registry.close(
        uri == null ? getDefaultURI() : uri,
        classLoader == null ? getDefaultClassLoader() : classLoader);
  }

  @Override
  public boolean isSupported(OptionalFeature feature) {
    return feature == OptionalFeature.STORE_BY_REFERENCE;
  }
}
