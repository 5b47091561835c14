package dev.larder.jcache.internal;

import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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
 * <p>Keys are {@code default.<setting>} or {@code cache.<name>.<setting>}; a cache name may contain
 * dots (the setting is what follows the last one). Unknown keys and a missing or unknown format
 * version fail the parse with a {@link CacheException} that names the file and the line, rather
 * than being ignored; {@link #where} locates each value, so that the manager can report a bad value
 * the same way. Immutable once parsed.
 */
final class FileConfiguration {

  static final String FORMAT_KEY = "larder.jcache.format";
  static final String FORMAT_VERSION = "1";
  static final FileConfiguration EMPTY =
      new FileConfiguration("no file", new EnumMap<>(FileSetting.class), Map.of(), Map.of());

  private final String source;
  private final Map<FileSetting, String> defaults;
  private final Map<String, Map<FileSetting, String>> caches;
  private final Map<String, Integer> lines;

  private FileConfiguration(
      String source,
      Map<FileSetting, String> defaults,
      Map<String, Map<FileSetting, String>> caches,
      Map<String, Integer> lines) {
    this.source = source;
    this.defaults = defaults;
    this.caches = caches;
    this.lines = lines;
  }

  /**
   * Returns the parsed configuration.
   *
   * @param entries the file's entries with their lines ({@link NumberedProperties})
   * @param source where it came from (a path or URI), for error messages
   * @throws CacheException on a format error, naming the source and the line
   */
  static FileConfiguration parse(List<NumberedProperties.Entry> entries, String source) {
    Map<String, Integer> lines = new HashMap<>();
    entries.forEach(entry -> lines.put(entry.key(), entry.line()));
    String format =
        entries.stream()
            .filter(e -> e.key().equals(FORMAT_KEY))
            .map(e -> e.value().trim())
            .findFirst()
            .orElse(null);
    if (!FORMAT_VERSION.equals(format)) {
      throw new CacheException(
          at(source, lines.get(FORMAT_KEY))
              + ": expected "
              + FORMAT_KEY
              + " = "
              + FORMAT_VERSION
              + ", found "
              + (format == null ? "no such line" : format));
    }
    Map<FileSetting, String> defaults = new EnumMap<>(FileSetting.class);
    Map<String, Map<FileSetting, String>> caches = new LinkedHashMap<>();
    for (NumberedProperties.Entry entry : entries) {
      if (!entry.key().equals(FORMAT_KEY)) {
        String where = at(source, entry.line());
        settingsFor(entry.key(), defaults, caches, where)
            .put(setting(entry.key(), where), entry.value().trim());
      }
    }
    return new FileConfiguration(
        source, defaults, Collections.unmodifiableMap(caches), Map.copyOf(lines));
  }

  private static String at(String source, Integer line) {
    return line == null ? source : source + ", line " + line;
  }

  private static Map<FileSetting, String> settingsFor(
      String key,
      Map<FileSetting, String> defaults,
      Map<String, Map<FileSetting, String>> caches,
      String where) {
    int lastDot = key.lastIndexOf('.');
    if (key.startsWith("default.") && lastDot == "default".length()) {
      return defaults;
    }
    if (key.startsWith("cache.") && lastDot > "cache.".length()) {
      String name = key.substring("cache.".length(), lastDot);
      return caches.computeIfAbsent(name, n -> new EnumMap<>(FileSetting.class));
    }
    throw new CacheException(
        where + ": key " + key + " is neither default.<setting> nor cache.<name>.<setting>");
  }

  private static FileSetting setting(String key, String where) {
    String name = key.substring(key.lastIndexOf('.') + 1);
    return FileSetting.byKey(name)
        .orElseThrow(
            () ->
                new CacheException(
                    where
                        + ": unknown setting '"
                        + name
                        + "' in key "
                        + key
                        + " (known: "
                        + Stream.of(FileSetting.values())
                            .map(FileSetting::key)
                            .collect(Collectors.joining(", "))
                        + ")"));
  }

  /** Returns the names of the caches the file declares, in file order. */
  Set<String> cacheNames() {
    return caches.keySet();
  }

  /**
   * Returns the caches the file declares that are to be created with the manager, in file order.
   */
  Set<String> cachesCreatedAtStartup() {
    Set<String> names = new LinkedHashSet<>();
    for (String name : caches.keySet()) {
      if ("true".equalsIgnoreCase(settingsFor(name).get(FileSetting.CREATE_AT_STARTUP))) {
        names.add(name);
      }
    }
    return names;
  }

  /** Returns where the file is, as its error messages name it. */
  String source() {
    return source;
  }

  /** Returns the settings under {@code default.}. */
  Map<FileSetting, String> defaults() {
    return Collections.unmodifiableMap(defaults);
  }

  /**
   * Returns the settings for it: the defaults overridden by its own entries; its own bound (memory
   * or entries) replaces a default bound of either kind.
   *
   * @param cacheName a cache name
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

  /**
   * Returns where that value comes from, e.g. {@code /etc/app/larder.properties, line 7
   * (cache.books.maximumEntries)}.
   *
   * @param cacheName a cache name
   * @param setting one of {@link #settingsFor}'s settings for it
   */
  String where(String cacheName, FileSetting setting) {
    String key =
        caches.getOrDefault(cacheName, Map.of()).containsKey(setting)
            ? "cache." + cacheName + "." + setting.key()
            : "default." + setting.key();
    return at(source, lines.get(key)) + " (" + key + ")";
  }

  /**
   * Returns where that default comes from.
   *
   * @param setting one of {@link #defaults()}
   */
  String whereDefault(FileSetting setting) {
    String key = "default." + setting.key();
    return at(source, lines.get(key)) + " (" + key + ")";
  }
}
