package dev.larder.jcache.internal;

import dev.larder.Storage;
import dev.larder.codec.Codec;
import dev.larder.jcache.LarderConfiguration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;

/**
 * Turns file settings into a {@link LarderConfiguration}. Values are validated here (class names
 * are resolved, codecs instantiated), and a bad one fails with a {@link CacheException} naming
 * where it comes from (file and line), the cache, the setting and the value.
 */
final class FileSettingsApplier {

  private final ClassLoader classLoader;
  private final String subject;
  private final Function<FileSetting, String> origin;

  /**
   * @param classLoader resolves class names
   * @param subject what the settings are for, for messages: {@code cache 'books'}
   * @param origin where a setting's value comes from (e.g. file and line), for messages
   */
  FileSettingsApplier(
      ClassLoader classLoader, String subject, Function<FileSetting, String> origin) {
    this.classLoader = classLoader;
    this.subject = subject;
    this.origin = origin;
  }

  /**
   * An applier for the settings of one cache of a file, locating values in it.
   *
   * @param classLoader resolves class names
   * @param file the file
   * @param cacheName the cache
   * @return the applier
   */
  static FileSettingsApplier forCache(
      ClassLoader classLoader, FileConfiguration file, String cacheName) {
    return new FileSettingsApplier(
        classLoader, "cache '" + cacheName + "'", s -> file.where(cacheName, s));
  }

  /**
   * An applier for a file's {@code default.*} settings alone, locating values in it.
   *
   * @param classLoader resolves class names
   * @param file the file
   * @return the applier
   */
  static FileSettingsApplier forDefaults(ClassLoader classLoader, FileConfiguration file) {
    return new FileSettingsApplier(classLoader, "the defaults", file::whereDefault);
  }

  /**
   * @param settings the settings to apply
   * @param config the configuration changed in place
   */
  void apply(Map<FileSetting, String> settings, LarderConfiguration<Object, Object> config) {
    if (settings.containsKey(FileSetting.MAXIMUM_MEMORY)
        && settings.containsKey(FileSetting.MAXIMUM_ENTRIES)) {
      throw new CacheException(
          origin.apply(FileSetting.MAXIMUM_MEMORY)
              + " and "
              + origin.apply(FileSetting.MAXIMUM_ENTRIES)
              + ": "
              + subject
              + ": maximumMemory and maximumEntries are exclusive; set one");
    }
    for (Map.Entry<FileSetting, String> entry : settings.entrySet()) {
      try {
        applyOne(entry.getKey(), entry.getValue(), config);
      } catch (RuntimeException e) {
        throw new CacheException(
            origin.apply(entry.getKey())
                + ": "
                + subject
                + ": bad "
                + entry.getKey().key()
                + " '"
                + entry.getValue()
                + "': "
                + reason(e),
            e);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private void applyOne(
      FileSetting setting, String value, LarderConfiguration<Object, Object> config) {
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
      case LOADER ->
          config.setCacheLoaderFactory(factory(value, CacheLoader.class)).setReadThrough(true);
      case WRITER ->
          config.setCacheWriterFactory(factory(value, CacheWriter.class)).setWriteThrough(true);
      case CREATE_AT_STARTUP -> parseBoolean(value); // read by the manager; checked here
    }
  }

  private static String reason(RuntimeException e) {
    return e instanceof NumberFormatException ? "not a number" : e.getMessage();
  }

  /** Checks the class now, so that a misspelled name fails at start-up, not on a miss. */
  @SuppressWarnings("unchecked")
  private <T> Factory<T> factory(String className, Class<?> required) {
    Class<?> type = loadClass(className);
    if (!required.isAssignableFrom(type)) {
      throw new IllegalArgumentException(className + " does not implement " + required.getName());
    }
    return (Factory<T>) FactoryBuilder.factoryOf(className);
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
    v =
        v.endsWith("ib")
            ? v.substring(0, v.length() - 2)
            : v.endsWith("b") ? v.substring(0, v.length() - 1) : v;
    long unit =
        switch (v.isEmpty() ? ' ' : v.charAt(v.length() - 1)) {
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
      default ->
          throw new IllegalArgumentException(
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
    TimeUnit unit =
        switch (v.substring(split).trim()) {
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
