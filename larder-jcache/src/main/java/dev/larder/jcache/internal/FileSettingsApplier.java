package dev.larder.jcache.internal;

import dev.larder.Storage;
import dev.larder.codec.Codec;
import dev.larder.jcache.LarderConfiguration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.cache.CacheException;
import javax.cache.configuration.Factory;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.expiry.TouchedExpiryPolicy;

/**
 * Turns file settings into a {@link LarderConfiguration}. Values are validated here, and a bad one
 * fails with a {@link CacheException} naming the cache, the setting and the value.
 */
final class FileSettingsApplier {

  private final ClassLoader classLoader;
  private final String cacheName;

  FileSettingsApplier(ClassLoader classLoader, String cacheName) {
    this.classLoader = classLoader;
    this.cacheName = cacheName;
  }

  /**
   * @param settings the settings to apply
   * @param config the configuration changed in place
   */
  void apply(Map<FileSetting, String> settings, LarderConfiguration<Object, Object> config) {
    if (settings.containsKey(FileSetting.MAXIMUM_MEMORY)
        && settings.containsKey(FileSetting.MAXIMUM_ENTRIES)) {
      throw new CacheException("cache '" + cacheName
          + "': maximumMemory and maximumEntries are exclusive; set one");
    }
    for (Map.Entry<FileSetting, String> entry : settings.entrySet()) {
      try {
        applyOne(entry.getKey(), entry.getValue(), config);
      } catch (RuntimeException e) {
        throw new CacheException("cache '" + cacheName + "': bad " + entry.getKey().key()
            + " '" + entry.getValue() + "': " + e.getMessage(), e);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private void applyOne(FileSetting setting, String value,
      LarderConfiguration<Object, Object> config) {
    switch (setting) {
      case MAXIMUM_MEMORY -> config.setMaximumMemory(parseSize(value));
      case MAXIMUM_ENTRIES -> config.setMaximumEntries(Long.parseLong(value));
      case STORAGE -> config.setStorage(Storage.valueOf(value.toUpperCase(Locale.ROOT)));
      case STORE_BY_VALUE -> config.setStoreByValue(parseBoolean(value));
      case KEY_TYPE -> config.setTypes((Class<Object>) loadClass(value), config.getValueType());
      case VALUE_TYPE -> config.setTypes(config.getKeyType(), (Class<Object>) loadClass(value));
      case KEY_CODEC -> config.setKeyCodec(codec(value));
      case VALUE_CODEC -> config.setValueCodec(codec(value));
      case EXPIRY -> config.setExpiryPolicyFactory(expiry(value));
      case STATISTICS -> config.setStatisticsEnabled(parseBoolean(value));
      case MANAGEMENT -> config.setManagementEnabled(parseBoolean(value));
      case LOADER -> config.setCacheLoaderFactory(FactoryBuilder.factoryOf(value))
          .setReadThrough(true);
      case WRITER -> config.setCacheWriterFactory(FactoryBuilder.factoryOf(value))
          .setWriteThrough(true);
    }
  }

  private Class<?> loadClass(String name) {
    try {
      return Class.forName(name, false, classLoader);
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("class not found", e);
    }
  }

  @SuppressWarnings("unchecked")
  private Codec<Object> codec(String value) {
    Codec<?> builtIn = CodecSelector.byName(value, classLoader);
    if (builtIn != null) {
      return (Codec<Object>) builtIn;
    }
    Class<?> type = loadClass(value);
    if (!Codec.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(value + " does not implement " + Codec.class.getName());
    }
    try {
      return (Codec<Object>) type.getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException("needs a public no-argument constructor", e);
    }
  }

  static boolean parseBoolean(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("expected true or false");
    };
  }

  static long parseSize(String value) {
    String v = value.toLowerCase(Locale.ROOT);
    v = v.endsWith("ib") ? v.substring(0, v.length() - 2)
        : v.endsWith("b") ? v.substring(0, v.length() - 1) : v;
    long unit = switch (v.isEmpty() ? ' ' : v.charAt(v.length() - 1)) {
      case 'k' -> 1L << 10;
      case 'm' -> 1L << 20;
      case 'g' -> 1L << 30;
      default -> 1;
    };
    String digits = unit == 1 ? v : v.substring(0, v.length() - 1);
    return Math.multiplyExact(Long.parseLong(digits.trim()), unit);
  }

  static Factory<ExpiryPolicy> expiry(String value) {
    if (value.equalsIgnoreCase("eternal")) {
      return EternalExpiryPolicy.factoryOf();
    }
    int colon = value.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("expected eternal or <kind>:<duration>");
    }
    Duration duration = parseDuration(value.substring(colon + 1).trim());
    return switch (value.substring(0, colon).trim().toLowerCase(Locale.ROOT)) {
      case "created" -> CreatedExpiryPolicy.factoryOf(duration);
      case "modified" -> ModifiedExpiryPolicy.factoryOf(duration);
      case "accessed" -> AccessedExpiryPolicy.factoryOf(duration);
      case "touched" -> TouchedExpiryPolicy.factoryOf(duration);
      default -> throw new IllegalArgumentException(
          "expiry kind must be created, modified, accessed or touched");
    };
  }

  static Duration parseDuration(String value) {
    String v = value.toLowerCase(Locale.ROOT);
    int split = 0;
    while (split < v.length() && Character.isDigit(v.charAt(split))) {
      split++;
    }
    long amount = Long.parseLong(v.substring(0, split));
    TimeUnit unit = switch (v.substring(split).trim()) {
      case "ms" -> TimeUnit.MILLISECONDS;
      case "s" -> TimeUnit.SECONDS;
      case "m" -> TimeUnit.MINUTES;
      case "h" -> TimeUnit.HOURS;
      case "d" -> TimeUnit.DAYS;
      default -> throw new IllegalArgumentException("duration unit must be ms, s, m, h or d");
    };
    return new Duration(unit, amount);
  }
}
