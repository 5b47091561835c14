package dev.larder.jcache.internal;

import java.util.Arrays;
import java.util.Optional;

/**
 * The per-cache settings of the configuration file (format version 1), each declared once with its
 * key, default and meaning. The parser accepts exactly these keys, under {@code default.} or {@code
 * cache.<name>.}; the README's table lists the same.
 */
enum FileSetting {
  MAXIMUM_MEMORY(
      "maximumMemory",
      "unbounded",
      "memory bound of a store-by-value cache: bytes, or with suffix k, m, g (KiB, MiB, GiB)"),
  MAXIMUM_ENTRIES("maximumEntries", "unbounded", "entry bound (instead of a memory bound)"),
  STORAGE("storage", "OFF_HEAP", "OFF_HEAP or HEAP: where a store-by-value cache keeps its pages"),
  STORE_BY_VALUE("storeByValue", "true", "false keeps the caller's objects on the heap"),
  KEY_TYPE("keyType", "java.lang.Object", "class name of the keys (checked on every operation)"),
  VALUE_TYPE("valueType", "java.lang.Object", "class name of the values (checked on writes)"),
  KEY_CODEC(
      "keyCodec",
      "from keyType",
      "string, long, integer, bytes, serialization, or the class name of a Codec with a public"
          + " no-argument constructor"),
  VALUE_CODEC("valueCodec", "from valueType", "as keyCodec"),
  EXPIRY(
      "expiry",
      "eternal",
      "eternal, or created|modified|accessed|touched:<duration> (ms, s, m, h, d suffixes), after"
          + " JCache's CreatedExpiryPolicy, ModifiedExpiryPolicy, AccessedExpiryPolicy and"
          + " TouchedExpiryPolicy"),
  STATISTICS("statistics", "false", "record statistics and register the statistics MXBean"),
  MANAGEMENT("management", "false", "register the configuration MXBean"),
  LOADER("loader", "none", "class name of a javax.cache.integration.CacheLoader (read-through)"),
  WRITER("writer", "none", "class name of a javax.cache.integration.CacheWriter (write-through)"),
  CREATE_AT_STARTUP(
      "createAtStartup",
      "false",
      "true creates a cache the file declares when the manager is created, so that"
          + " getCacheNames() lists it at once (Spring Boot binds cache metrics only to caches"
          + " that exist at start-up); false creates it on the first getCache");

  private final String key;
  private final String defaultValue;
  private final String description;

  FileSetting(String key, String defaultValue, String description) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.description = description;
  }

  String key() {
    return key;
  }

  String defaultValue() {
    return defaultValue;
  }

  String description() {
    return description;
  }

  static Optional<FileSetting> byKey(String key) {
    return Arrays.stream(values()).filter(s -> s.key.equals(key)).findFirst();
  }
}
