package dev.larder.bench.peer;

/**
 * A cache implementation the benchmarks compare: a name for the output and a factory of caches.
 * Where the library has a manager (Ehcache's CacheManager, Infinispan's cache manager) one {@link
 * CacheFamily} owns one manager and creates all its caches in it.
 */
public interface Peer {

  /** Returns the implementation's name in tables and JSON, e.g. {@code "Ehcache-offheap"}. */
  String name();

  /** Returns true if entries live outside the Java heap. */
  boolean offHeap();

  /**
   * Returns a new family (and manager, where the library has one).
   *
   * @param spec what the scenario needs, the same for every cache of the family
   * @param <K> key type
   * @param <V> value type
   * @throws PeerUnavailableException if the library cannot do what the spec asks
   * @throws Exception if the library fails to start here
   */
  <K, V> CacheFamily<K, V> family(CacheSpec<K, V> spec) throws Exception;

  /**
   * Returns one new, empty cache; closing it closes its family.
   *
   * @param spec what the scenario needs
   * @param <K> key type
   * @param <V> value type
   * @throws Exception as {@link #family}
   */
  default <K, V> BenchCache<K, V> create(CacheSpec<K, V> spec) throws Exception {
    CacheFamily<K, V> family = family(spec);
    try {
      return new OwningCache<>(family.newCache("bench"), family);
    } catch (Exception | Error e) {
      family.close();
      throw e;
    }
  }
}
