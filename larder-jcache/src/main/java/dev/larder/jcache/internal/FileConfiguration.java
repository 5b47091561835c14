package dev.larder.jcache.internal;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import javax.cache.CacheException;

/**
 * A parsed configuration file (format version 1; the module README documents it).
 *
 * <pre>
 * larder.jcache.format = 1
 * default.storage = HEAP                  # applies to every cache of the manager
 * cache.sessions.maximumMemory = 256m     # one cache, named "sessions"
 * cache.sessions.expiry = accessed:30m
 * </pre>
 *
 * <p>Keys are {@code default.<setting>} or {@code cache.<name>.<setting>}; a cache name may
 * contain dots (the setting is what follows the last one). Unknown keys, a missing or unknown
 * format version, and bad values fail the manager's creation with a {@link CacheException} that
 * names the key, rather than being ignored. Immutable once parsed.
 */
final class FileConfiguration {

  static final String FORMAT_KEY = "larder.jcache.format";
  static final String FORMAT_VERSION = "1";
  static final FileConfiguration EMPTY =
      new FileConfiguration(new EnumMap<>(FileSetting.class), Map.of());

  private final Map<FileSetting, String> defaults;
  private final Map<String, Map<FileSetting, String>> caches;

  private FileConfiguration(Map<FileSetting, String> defaults,
      Map<String, Map<FileSetting, String>> caches) {
    this.defaults = defaults;
    this.caches = caches;
  }

  /**
   * @param properties the file's content
   * @param source where it came from, for error messages
   * @return the parsed configuration
   * @throws CacheException on a format error
   */
  static FileConfiguration parse(Properties properties, String source) {
    String format = properties.getProperty(FORMAT_KEY);
    if (!FORMAT_VERSION.equals(format == null ? null : format.trim())) {
      throw new CacheException(source + ": expected " + FORMAT_KEY + " = " + FORMAT_VERSION
          + ", found " + format);
    }
    Map<FileSetting, String> defaults = new EnumMap<>(FileSetting.class);
    Map<String, Map<FileSetting, String>> caches = new LinkedHashMap<>();
    for (String key : properties.stringPropertyNames()) {
      if (!key.equals(FORMAT_KEY)) {
        String value = properties.getProperty(key).trim();
        settingsFor(key, defaults, caches, source).put(setting(key, source), value);
      }
    }
    return new FileConfiguration(defaults, Collections.unmodifiableMap(caches));
  }

  private static Map<FileSetting, String> settingsFor(String key, Map<FileSetting, String> defaults,
      Map<String, Map<FileSetting, String>> caches, String source) {
    int lastDot = key.lastIndexOf('.');
    if (key.startsWith("default.") && lastDot == "default".length()) {
      return defaults;
    }
    if (key.startsWith("cache.") && lastDot > "cache.".length()) {
      String name = key.substring("cache.".length(), lastDot);
      return caches.computeIfAbsent(name, n -> new EnumMap<>(FileSetting.class));
    }
    throw new CacheException(source + ": key " + key
        + " is neither default.<setting> nor cache.<name>.<setting>");
  }

  private static FileSetting setting(String key, String source) {
    String name = key.substring(key.lastIndexOf('.') + 1);
    return FileSetting.byKey(name).orElseThrow(() -> new CacheException(
        source + ": unknown setting '" + name + "' in key " + key));
  }

  /** @return the names of the caches the file declares */
  Set<String> cacheNames() {
    return caches.keySet();
  }

  /**
   * @param cacheName a cache name
   * @return the settings for it: the defaults overridden by its own entries; its own bound
   *     (memory or entries) replaces a default bound of either kind
   */
  Map<FileSetting, String> settingsFor(String cacheName) {
    Map<FileSetting, String> own = caches.getOrDefault(cacheName, Map.of());
    Map<FileSetting, String> merged = new EnumMap<>(FileSetting.class);
    merged.putAll(defaults);
    // A cache's own bound replaces a default bound of the other kind.
    if (own.containsKey(FileSetting.MAXIMUM_MEMORY)) {
      merged.remove(FileSetting.MAXIMUM_ENTRIES);
    }
    if (own.containsKey(FileSetting.MAXIMUM_ENTRIES)) {
      merged.remove(FileSetting.MAXIMUM_MEMORY);
    }
    merged.putAll(own);
    return merged;
  }
}
