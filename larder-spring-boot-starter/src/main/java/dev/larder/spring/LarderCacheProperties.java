package dev.larder.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code larder.*} properties: one {@link CacheSpec} per cache under
 * {@code larder.caches.<name>}, and {@code larder.defaults} for caches that are asked for by name
 * without being declared. For example:
 *
 * <pre>
 * larder.caches.books.maximum-memory=64MB
 * larder.caches.books.key-type=java.lang.Long
 * larder.caches.books.value-type=com.example.Book
 * larder.caches.books.expire-after-write=10m
 * </pre>
 *
 * <p>Bound at start-up, so a bad value fails the application's start with the property's name
 * and origin (file and line), not the cache's first use.
 */
@ConfigurationProperties("larder")
public class LarderCacheProperties {

  private final Map<String, CacheSpec> caches = new LinkedHashMap<>();
  private CacheSpec defaults = new CacheSpec();

  /** @return the declared caches by name; each is created when the application starts */
  public Map<String, CacheSpec> getCaches() {
    return caches;
  }

  /**
   * @return settings for caches that are asked for by name but not declared; such caches are
   *     created on first use only if these settings say how to encode keys and values
   */
  public CacheSpec getDefaults() {
    return defaults;
  }

  /** @param defaults settings for undeclared caches */
  public void setDefaults(CacheSpec defaults) {
    this.defaults = defaults;
  }
}
