package dev.larder.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The {@code larder.*} properties: one {@link CacheSpec} per cache under {@code
 * larder.caches.<name>}, and {@code larder.defaults} for caches that are asked for by name without
 * being declared. For example:
 *
 * <pre>
 * larder.caches.books.maximum-memory=64MB
 * larder.caches.books.key-type=java.lang.Long
 * larder.caches.books.value-type=com.example.Book
 * larder.caches.books.expire-after-write=10m
 * </pre>
 *
 * <p>Bound at start-up, so a bad value fails the application's start with the property's name and
 * origin (file and line), not the cache's first use; so does a {@code larder.*} key that names no
 * property (a misspelling such as {@code maximum-memroy}), instead of being ignored.
 */
@ConfigurationProperties(prefix = "larder", ignoreUnknownFields = false)
public class LarderCacheProperties {

  /**
   * Whether Larder is the application's cache manager; false leaves the choice to Boot
   * (spring.cache.type, or the cache library it finds).
   */
  private boolean enabled = true;

  /** Caches created when the application starts, by name. */
  private final Map<String, CacheSpec> caches = new LinkedHashMap<>();

  /**
   * Settings of caches asked for by name without being declared under larder.caches (or named in
   * spring.cache.cache-names); such caches are made on first use only if value-type or
   * serialization=java is given here.
   */
  @NestedConfigurationProperty private CacheSpec defaults = new CacheSpec();

  /** Returns whether Larder is the cache manager (true unless {@code larder.enabled=false}). */
  public boolean isEnabled() {
    return enabled;
  }

  /**
   * Sets whether Larder is the cache manager.
   *
   * @param enabled whether Larder is the cache manager
   */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /** Returns the declared caches by name; each is created when the application starts. */
  public Map<String, CacheSpec> getCaches() {
    return caches;
  }

  /**
   * Returns settings for caches that are asked for by name but not declared; such caches are
   * created on first use only if these settings say how to encode keys and values.
   */
  public CacheSpec getDefaults() {
    return defaults;
  }

  /**
   * Sets the settings of caches the properties do not declare.
   *
   * @param defaults settings for undeclared caches
   */
  public void setDefaults(CacheSpec defaults) {
    this.defaults = defaults;
  }
}
