package dev.larder.http;

import dev.larder.Cache;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * The caches an HTTP endpoint shows, by name, and the optional status sections (a transaction
 * log's, a cluster's) shown beside them.
 *
 * <p>A cache added with {@link #add(String, Cache)} is reported ({@code /metrics}, {@code
 * /api/caches}, the console) but has no REST entries endpoint; one added with key and value formats
 * also serves GET, PUT and DELETE of its entries. A Larder {@link Cache} is adapted with {@link
 * ServedCache#of}; a store that is not one implements {@link ServedCache} and is added as it is.
 * The directory holds the caches strongly and never closes them: the application owns their life
 * cycle. A cache closed while still in the directory is left out of reports until it is removed.
 *
 * <p>Thread-safe: caches and sections may be added and removed while servers read the directory; a
 * reader sees each change whole.
 */
public final class CacheDirectory {

  private final ConcurrentMap<String, Registration<?, ?>> caches = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Supplier<? extends Map<String, ?>>> sections =
      new ConcurrentHashMap<>();

  /** Makes an empty directory. */
  public CacheDirectory() {}

  /**
   * A cache in the directory.
   *
   * @param name its name in paths and in the {@code cache} tag of its meters
   * @param cache the cache, as the endpoints see it
   * @param keys the string form of its keys, if it serves REST
   * @param values the wire form of its values, if it serves REST
   * @param <K> key type
   * @param <V> value type
   */
  public record Registration<K, V>(
      String name,
      ServedCache<K, V> cache,
      Optional<KeyFormat<K>> keys,
      Optional<ValueFormat<V>> values) {

    /** Checks the components; both formats are given or neither. */
    public Registration {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(cache, "cache");
      Objects.requireNonNull(keys, "keys");
      Objects.requireNonNull(values, "values");
      if (keys.isPresent() != values.isPresent()) {
        throw new IllegalArgumentException("give both a key and a value format, or neither");
      }
    }

    /** Returns whether GET, PUT and DELETE of entries are served. */
    public boolean servesEntries() {
      return keys.isPresent();
    }
  }

  /**
   * Adds a cache that is reported but serves no entries over REST.
   *
   * @param name a non-blank name, unique in this directory
   * @param cache the cache
   * @return this directory
   * @throws IllegalStateException if the name is taken
   * @throws IllegalArgumentException if the name is blank
   */
  public CacheDirectory add(String name, Cache<?, ?> cache) {
    return add(name, ServedCache.of(Objects.requireNonNull(cache, "cache")));
  }

  /**
   * Adds a cache that is reported but serves no entries over REST.
   *
   * @param name a non-blank name, unique in this directory
   * @param cache the cache, as the endpoints see it
   * @return this directory
   * @throws IllegalStateException if the name is taken
   * @throws IllegalArgumentException if the name is blank
   */
  public CacheDirectory add(String name, ServedCache<?, ?> cache) {
    return put(new Registration<>(checkName(name), cache, Optional.empty(), Optional.empty()));
  }

  /**
   * Adds a cache that is reported and serves its entries over REST.
   *
   * @param name a non-blank name, unique in this directory
   * @param cache the cache
   * @param keys the string form of its keys
   * @param values the wire form of its values
   * @param <K> key type
   * @param <V> value type
   * @return this directory
   * @throws IllegalStateException if the name is taken
   * @throws IllegalArgumentException if the name is blank
   */
  public <K, V> CacheDirectory add(
      String name, Cache<K, V> cache, KeyFormat<K> keys, ValueFormat<V> values) {
    return add(name, ServedCache.of(Objects.requireNonNull(cache, "cache")), keys, values);
  }

  /**
   * Adds a cache that is reported and serves its entries over REST.
   *
   * @param name a non-blank name, unique in this directory
   * @param cache the cache, as the endpoints see it
   * @param keys the string form of its keys
   * @param values the wire form of its values
   * @param <K> key type
   * @param <V> value type
   * @return this directory
   * @throws IllegalStateException if the name is taken
   * @throws IllegalArgumentException if the name is blank
   */
  public <K, V> CacheDirectory add(
      String name, ServedCache<K, V> cache, KeyFormat<K> keys, ValueFormat<V> values) {
    return put(
        new Registration<>(
            checkName(name),
            cache,
            Optional.of(Objects.requireNonNull(keys, "keys")),
            Optional.of(Objects.requireNonNull(values, "values"))));
  }

  /**
   * Adds a cache of strings, serving its entries as UTF-8 {@code text/plain}.
   *
   * @param name a non-blank name, unique in this directory
   * @param cache the cache
   * @return this directory
   */
  public CacheDirectory addStrings(String name, Cache<String, String> cache) {
    return add(name, cache, KeyFormat.strings(), ValueFormat.utf8());
  }

  /**
   * Adds a cache of byte arrays under string keys, serving its entries as {@code
   * application/octet-stream}.
   *
   * @param name a non-blank name, unique in this directory
   * @param cache the cache
   * @return this directory
   */
  public CacheDirectory addBytes(String name, Cache<String, byte[]> cache) {
    return add(name, cache, KeyFormat.strings(), ValueFormat.bytes());
  }

  /**
   * Returns whether a cache of that name was removed (it is not closed).
   *
   * @param name a cache's name
   */
  public boolean remove(String name) {
    return caches.remove(Objects.requireNonNull(name, "name")) != null;
  }

  /**
   * Returns its registration, if present.
   *
   * @param name a cache's name
   */
  public Optional<Registration<?, ?>> get(String name) {
    return Optional.ofNullable(caches.get(Objects.requireNonNull(name, "name")));
  }

  /** Returns every registration, ordered by name. */
  public List<Registration<?, ?>> list() {
    return caches.values().stream().sorted(Comparator.comparing(Registration::name)).toList();
  }

  /**
   * Adds or replaces a status section, e.g. {@code "log"} or {@code "cluster"}, that {@code
   * /api/caches} reports under {@code "sections"} and the console shows in its own panel. The
   * supplier is called on every report, on a network thread: it must be quick and thread-safe, and
   * its values should be strings, numbers or booleans.
   *
   * @param section the section's name
   * @param supplier its current figures by label
   * @return this directory
   */
  public CacheDirectory section(String section, Supplier<? extends Map<String, ?>> supplier) {
    sections.put(checkName(section), Objects.requireNonNull(supplier, "supplier"));
    return this;
  }

  /**
   * Returns whether it was present.
   *
   * @param section a section's name
   */
  public boolean removeSection(String section) {
    return sections.remove(Objects.requireNonNull(section, "section")) != null;
  }

  /** Returns the sections, ordered by name. */
  public Map<String, Supplier<? extends Map<String, ?>>> sections() {
    return new TreeMap<>(sections);
  }

  private CacheDirectory put(Registration<?, ?> registration) {
    Registration<?, ?> previous = caches.putIfAbsent(registration.name(), registration);
    if (previous != null) {
      throw new IllegalStateException(
          "a cache named '" + registration.name() + "' is already in the directory");
    }
    return this;
  }

  private static String checkName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a name must not be blank");
    }
    return name;
  }
}
