package dev.larder.bench.scenarios;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.Storage;
import dev.larder.bench.peer.BenchCache;
import dev.larder.bench.peer.CacheFamily;
import dev.larder.bench.peer.CacheSpec;
import dev.larder.bench.peer.LarderPeer;
import dev.larder.bench.peer.Peer;
import dev.larder.codec.Codecs;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The read-through arrangements of the concurrency scenario. Caches with a loading API use it
 * (Larder's loader with single flight, Caffeine's LoadingCache, ConcurrentHashMap's
 * computeIfAbsent); the pattern the 100x100 tree read-through test replaced is a synchronized
 * LinkedHashMap LRU that loads while holding its lock; the other peers are used cache-aside (get,
 * load on a miss, put), which is what their APIs offer for a store they do not know.
 */
final class ReadThroughs {

  /** The synchronized LRU of the 100x100 tree read-through test's "before" picture. */
  static final String SYNCHRONIZED_LRU = "LinkedHashMap-LRU";

  private ReadThroughs() {}

  /** Makes fresh, empty read-through caches of one implementation, sharing its manager. */
  interface Source extends AutoCloseable {
    /**
     * Returns a new, empty cache.
     *
     * @throws Exception if the library fails to create it
     */
    ReadThrough create() throws Exception;

    @Override
    void close();
  }

  static Source source(
      String implementation, Peer peer, SlowStore store, long capacity, long expected)
      throws Exception {
    return switch (implementation) {
      case SYNCHRONIZED_LRU -> simple(() -> new SynchronizedLru(store, capacity));
      case "Caffeine" -> simple(() -> caffeine(store, capacity));
      case "ConcurrentHashMap" -> simple(() -> computeIfAbsent(store));
      case "Larder-offheap", "Larder-heap" ->
          simple(() -> larder((LarderPeer) peer, store, capacity));
      default -> cacheAside(peer, store, capacity, expected);
    };
  }

  private static Source simple(java.util.function.Supplier<ReadThrough> factory) {
    return new Source() {
      @Override
      public ReadThrough create() {
        return factory.get();
      }

      @Override
      public void close() {
        // Nothing shared between the caches.
      }
    };
  }

  private static ReadThrough caffeine(SlowStore store, long capacity) {
    LoadingCache<String, byte[]> cache =
        Caffeine.newBuilder().maximumSize(capacity).build(store::load);
    return new WriteThrough(store, cache::get, cache::put, cache::invalidateAll);
  }

  private static ReadThrough larder(LarderPeer peer, SlowStore store, long capacity) {
    CacheBuilder<String, byte[]> builder =
        Cache.builder(Codecs.strings(), Codecs.bytes())
            .storage(peer.offHeap() ? Storage.OFF_HEAP : Storage.HEAP)
            .maximumEntries(capacity)
            .loader(store::load);
    Cache<String, byte[]> cache = builder.build();
    return new WriteThrough(store, cache::get, cache::put, cache::close);
  }

  private static ReadThrough computeIfAbsent(SlowStore store) {
    ConcurrentHashMap<String, byte[]> map = new ConcurrentHashMap<>();
    return new WriteThrough(
        store, key -> map.computeIfAbsent(key, store::load), map::put, map::clear);
  }

  private static Source cacheAside(Peer peer, SlowStore store, long capacity, long expected)
      throws Exception {
    CacheSpec<String, byte[]> spec =
        new CacheSpec<>(
            String.class,
            byte[].class,
            Codecs.bytes(),
            capacity,
            0,
            expected,
            8,
            SlowStore.VALUE_BYTES);
    CacheFamily<String, byte[]> family = peer.family(spec);
    return new Source() {
      private int created;

      @Override
      public ReadThrough create() throws Exception {
        return cacheAside(family.newCache("cache-" + created++), store);
      }

      @Override
      public void close() {
        family.close();
      }
    };
  }

  private static ReadThrough cacheAside(BenchCache<String, byte[]> cache, SlowStore store) {
    return new WriteThrough(
        store,
        key -> {
          byte[] v = cache.get(key);
          if (v == null) {
            v = store.load(key);
            cache.put(key, v);
          }
          return v;
        },
        cache::put,
        cache::close);
  }

  /**
   * A cache read by {@code reader}; a write goes to the store first, then to the cache, as every
   * arrangement here does.
   */
  private record WriteThrough(
      SlowStore store,
      Function<String, byte[]> reader,
      BiConsumer<String, byte[]> cachePut,
      Runnable closer)
      implements ReadThrough {
    @Override
    public byte[] read(String key) {
      return reader.apply(key);
    }

    @Override
    public void write(String key, byte[] value) {
      store.store(key, value);
      cachePut.accept(key, value);
    }

    @Override
    public void close() {
      closer.run();
    }
  }

  /** Loads under the map's lock, so one miss blocks every reader: the pattern to beat. */
  private static final class SynchronizedLru implements ReadThrough {
    private final SlowStore store;
    private final Map<String, byte[]> map;

    SynchronizedLru(SlowStore store, long capacity) {
      this.store = store;
      this.map =
          new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
              return size() > capacity;
            }
          };
    }

    @Override
    public synchronized byte[] read(String key) {
      byte[] v = map.get(key);
      if (v == null) {
        v = store.load(key);
        map.put(key, v);
      }
      return v;
    }

    @Override
    public void write(String key, byte[] value) {
      store.store(key, value);
      synchronized (this) {
        map.put(key, value);
      }
    }

    @Override
    public synchronized void close() {
      map.clear();
    }
  }
}
