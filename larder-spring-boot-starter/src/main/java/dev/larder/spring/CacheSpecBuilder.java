package dev.larder.spring;

import dev.larder.CacheBuilder;
import java.time.Duration;
import org.springframework.util.unit.DataSize;

/**
 * Applies one cache's bound, storage, expiry and statistics settings to a {@link CacheBuilder},
 * turning each refusal into a {@link LarderConfigurationException} that names the property and its
 * value, with a fix in properties terms (the builder's own messages name its Java methods). Used
 * once per cache; not thread-safe.
 */
final class CacheSpecBuilder {

  /** The builder's smallest byte bound, 64 KiB. */
  private static final long MINIMUM_MEMORY = 64L << 10;

  private final String name;
  private final String prefix;
  private final CacheSpec spec;
  private final CacheBuilder<Object, Object> builder;

  CacheSpecBuilder(
      String name, String prefix, CacheSpec spec, CacheBuilder<Object, Object> builder) {
    this.name = name;
    this.prefix = prefix;
    this.spec = spec;
    this.builder = builder;
  }

  void apply() {
    bound();
    builder.storage(spec.getStorage());
    expiry();
    if (spec.isRecordStats()) {
      builder.recordStats();
    }
  }

  private void bound() {
    if (spec.getMaximumEntries() != null && spec.getMaximumMemory() != null) {
      throw refused(
          "maximum-entries",
          spec.getMaximumEntries(),
          "a cache has one bound, and maximum-memory is set too",
          "Remove " + prefix + ".maximum-entries or " + prefix + ".maximum-memory.");
    }
    if (spec.getMaximumEntries() != null) {
      long entries = spec.getMaximumEntries();
      set(
          "maximum-entries",
          entries,
          () -> builder.maximumEntries(entries),
          "Set "
              + prefix
              + ".maximum-entries to a positive number of entries, or remove it to"
              + " bound the cache by maximum-memory (64MB unless set).");
      return;
    }
    long bytes =
        spec.getMaximumMemory() == null
            ? LarderCacheManager.DEFAULT_MAXIMUM_MEMORY
            : spec.getMaximumMemory().toBytes();
    set(
        "maximum-memory",
        spec.getMaximumMemory(),
        () -> {
          if (bytes < MINIMUM_MEMORY) {
            // The builder's own message counts bytes; a properties user writes KB and MB.
            throw new IllegalArgumentException("must be at least 64KB");
          }
          builder.maximumMemory(bytes);
        },
        "Set "
            + prefix
            + ".maximum-memory to at least 64KB (e.g. 64MB), or bound the cache by"
            + " "
            + prefix
            + ".maximum-entries instead.");
  }

  private void expiry() {
    Duration write = spec.getExpireAfterWrite();
    Duration access = spec.getExpireAfterAccess();
    if (write != null && access != null) {
      throw refused(
          "expire-after-access",
          access,
          "a cache expires entries after their write or after their last access, not both",
          "Remove " + prefix + ".expire-after-write or " + prefix + ".expire-after-access.");
    }
    String fix = "a positive duration, e.g. 10m, 30s or 2h";
    if (write != null) {
      set(
          "expire-after-write",
          write,
          () -> builder.expireAfterWrite(write),
          "Set " + prefix + ".expire-after-write to " + fix + ", or remove it.");
    }
    if (access != null) {
      set(
          "expire-after-access",
          access,
          () -> builder.expireAfterAccess(access),
          "Set " + prefix + ".expire-after-access to " + fix + ", or remove it.");
    }
  }

  private void set(String property, Object value, Runnable call, String action) {
    try {
      call.run();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw refused(property, value, reason(e), action);
    }
  }

  /** The builder's reason without its Java names: "must be positive", "must be at least ...". */
  private static String reason(RuntimeException e) {
    String message = String.valueOf(e.getMessage());
    int must = message.indexOf("must ");
    // "must be positive: -5": the report shows the value already.
    return (must >= 0 ? message.substring(must) : message).replaceFirst(":\\s*\\S+$", "");
  }

  private LarderConfigurationException refused(
      String property, Object value, String why, String action) {
    String full = prefix + "." + property;
    return new LarderConfigurationException(
        full,
        "cache '" + name + "': " + full + "=" + text(value) + " is refused: " + why + ".",
        action,
        null);
  }

  /** A value as a properties file would give it: {@code 1KB}, {@code 10m}, not 1024B, PT10M. */
  static String text(Object value) {
    return switch (value) {
      case null -> "(default)";
      case DataSize size ->
          largestUnit(
              size.toBytes(),
              new long[] {1L << 30, 1L << 20, 1L << 10},
              new String[] {"GB", "MB", "KB"},
              "B");
      case Duration d when d.toNanos() % 1_000_000 == 0 ->
          largestUnit(
              d.toMillis(),
              new long[] {86_400_000, 3_600_000, 60_000, 1000},
              new String[] {"d", "h", "m", "s"},
              "ms");
      default -> String.valueOf(value);
    };
  }

  private static String largestUnit(long amount, long[] units, String[] names, String base) {
    for (int i = 0; i < units.length; i++) {
      if (amount != 0 && amount % units[i] == 0) {
        return amount / units[i] + names[i];
      }
    }
    return amount + base;
  }
}
