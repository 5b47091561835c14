package dev.larder.server.internal.http;

import dev.larder.Cache;
import dev.larder.CacheStats;
import dev.larder.LatencySummary;
import dev.larder.SnapshotMapView;
import dev.larder.codec.ValueDictionary;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.Lock;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The server's keyspace as a {@link Cache} of database 0's string keys, which is how larder-http
 * reports it ({@code /api/caches}, {@code /metrics}, the console) and serves its entries over
 * REST.
 *
 * <p><b>Why a view.</b> The keyspace replaces its cache when {@code CONFIG SET maxmemory}
 * changes the bound, and closes the old one. The HTTP side holds this view, which asks the
 * keyspace on every call, so it always reports the current cache: never a closed one, and no
 * directory to update. Every call holds the keyspace's shared lock, as every RESP command does;
 * the rebuild runs under the exclusive lock, so a call sees the cache before or after it, whole.
 *
 * <p><b>Figures.</b> Sizes and bounds are the whole keyspace's (all 16 databases, as
 * {@code INFO memory} reports them). Statistics are the keyspace's own counters, the ones
 * {@code INFO stats} reports: hits and misses of reads (GET, HGET, memcached get and the like),
 * expired keys and evicted keys. The server counts neither writes nor latencies, so puts,
 * removals, loads and latency percentiles read 0.
 *
 * <p><b>Entries.</b> Keys are database 0's keys as UTF-8 text, values the bytes of a string
 * value. A write stores a plain string with no expiry (as {@code SET key value} does, replacing
 * any value of another type); reading a key that holds a hash throws
 * {@link IllegalArgumentException} with Redis's {@code WRONGTYPE} wording. There is no loader:
 * {@link #get(Object)} is {@link #getIfPresent(Object)}. {@link #asMap()} iterates a snapshot
 * of database 0's string entries. {@link #close()} does nothing: the server owns the keyspace.
 *
 * <p>Thread-safe.
 */
public final class KeyspaceCacheView implements Cache<String, byte[]> {

  private static final int DB = 0;

  private final Keyspace keyspace;

  /**
   * @param keyspace the server's keyspace
   */
  public KeyspaceCacheView(Keyspace keyspace) {
    this.keyspace = Objects.requireNonNull(keyspace, "keyspace");
  }

  /**
   * Runs a call under the shared lock, then waits for the log as a RESP reply would (a write is
   * answered once durable under the server's appendfsync; a read once what it saw is).
   */
  private <T> T locked(Supplier<T> body) {
    Lock lock = keyspace.shared();
    lock.lock();
    T result;
    try {
      result = body.get();
    } finally {
      lock.unlock();
    }
    keyspace.awaitDurable();
    return result;
  }

  private static byte[] key(String key) {
    return Objects.requireNonNull(key, "key").getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] payloadOf(String key, StoredValue value) {
    if (value == null) {
      return null;
    }
    if (value.type() != ValueType.STRING) {
      throw new IllegalArgumentException("WRONGTYPE key '" + key + "' holds a "
          + value.type().redisName() + ", not a string");
    }
    return value.payload();
  }

  private static StoredValue stringOf(byte[] value, String name) {
    return StoredValue.string(Objects.requireNonNull(value, name).clone());
  }

  @Override
  public byte[] get(String key) {
    return getIfPresent(key);
  }

  @Override
  public byte[] getIfPresent(String key) {
    byte[] k = key(key);
    return locked(() -> payloadOf(key, keyspace.get(DB, k)));
  }

  @Override
  public byte[] get(String key, Function<? super String, ? extends byte[]> mappingFunction) {
    Objects.requireNonNull(mappingFunction, "mappingFunction");
    return compute(key, (k, old) -> old != null ? old : mappingFunction.apply(k));
  }

  @Override
  public Map<String, byte[]> getAll(Iterable<? extends String> keys) {
    Objects.requireNonNull(keys, "keys");
    Map<String, byte[]> found = new LinkedHashMap<>();
    for (String key : keys) {
      byte[] value = getIfPresent(key);
      if (value != null) {
        found.put(key, value);
      }
    }
    return found;
  }

  @Override
  public void put(String key, byte[] value) {
    byte[] k = key(key);
    StoredValue v = stringOf(value, "value");
    locked(() -> keyspace.put(DB, k, v));
  }

  @Override
  public void putAll(Map<? extends String, ? extends byte[]> map) {
    Objects.requireNonNull(map, "map").forEach(this::put);
  }

  @Override
  public byte[] putIfAbsent(String key, byte[] value) {
    StoredValue v = stringOf(value, "value");
    Keyspace.Change c = update(key, old -> old == null ? v : old);
    return c.before() == null ? null : payloadOf(key, c.before());
  }

  @Override
  public byte[] replace(String key, byte[] value) {
    StoredValue v = stringOf(value, "value");
    Keyspace.Change c = update(key, old -> old == null ? null : v);
    return c.before() == null ? null : payloadOf(key, c.before());
  }

  @Override
  public boolean replace(String key, byte[] oldValue, byte[] newValue) {
    Objects.requireNonNull(oldValue, "oldValue");
    StoredValue v = stringOf(newValue, "newValue");
    Keyspace.Change c = update(key, old -> sameString(old, oldValue) ? v : old);
    return c.after() != c.before();
  }

  @Override
  public byte[] remove(String key) {
    Keyspace.Change c = update(key, old -> null);
    return c.before() == null ? null : payloadOf(key, c.before());
  }

  @Override
  public boolean remove(String key, byte[] value) {
    Objects.requireNonNull(value, "value");
    Keyspace.Change c = update(key, old -> sameString(old, value) ? null : old);
    return c.before() != null && c.after() == null;
  }

  @Override
  public void invalidate(String key) {
    byte[] k = key(key);
    locked(() -> keyspace.delete(DB, k));
  }

  /** Removes every key of database 0 (as {@code FLUSHDB} there would). */
  @Override
  public void invalidateAll() {
    locked(() -> {
      keyspace.flush(DB);
      return null;
    });
  }

  @Override
  public void invalidateAll(Iterable<? extends String> keys) {
    Objects.requireNonNull(keys, "keys").forEach(this::invalidate);
  }

  @Override
  public byte[] compute(String key,
      BiFunction<? super String, ? super byte[], ? extends byte[]> remappingFunction) {
    Objects.requireNonNull(remappingFunction, "remappingFunction");
    Keyspace.Change c = update(key, old -> {
      byte[] before = payloadOf(key, old);
      byte[] after = remappingFunction.apply(key, before);
      if (after == before) {
        return old;
      }
      return after == null ? null : StoredValue.string(after.clone());
    });
    return c.after() == null ? null : c.after().payload();
  }

  @Override
  public boolean containsKey(String key) {
    byte[] k = key(key);
    return locked(() -> keyspace.peek(DB, k) != null);
  }

  /** @return keys stored in every database (the cache's estimate; see the class comment) */
  @Override
  public long estimatedSize() {
    return locked(keyspace::estimatedSize);
  }

  @Override
  public long memoryUsed() {
    return locked(keyspace::memoryUsed);
  }

  @Override
  public OptionalLong maximumMemory() {
    return OptionalLong.of(locked(keyspace::maxMemory));
  }

  @Override
  public OptionalLong maximumEntries() {
    return OptionalLong.empty();
  }

  @Override
  public Optional<ValueDictionary> dictionary() {
    return Optional.empty();
  }

  /** @return true: the keyspace always counts hits, misses, expirations and evictions */
  @Override
  public boolean recordsStats() {
    return true;
  }

  @Override
  public CacheStats stats() {
    long[] s = locked(keyspace::stats);
    return new CacheStats(s[0], s[1], 0, 0, s[3], s[2], 0, 0, LatencySummary.EMPTY,
        LatencySummary.EMPTY, LatencySummary.EMPTY);
  }

  /** Removes a slice of expired keys, as the server's background sweep does. */
  @Override
  public void cleanUp() {
    locked(() -> keyspace.sweepExpired(1_000));
  }

  /**
   * Database 0's string keys as a map: single-key operations are this view's; iteration walks a
   * snapshot of the string entries taken under the keyspace's shared lock when the iterator is
   * created (keys holding other types are left out), and its size is the whole keyspace's
   * estimate, as {@link #estimatedSize()}.
   */
  @Override
  public ConcurrentMap<String, byte[]> asMap() {
    return new SnapshotMapView<>(this, this::stringEntries);
  }

  private List<Map.Entry<String, byte[]>> stringEntries() {
    List<Map.Entry<String, byte[]>> entries = new ArrayList<>();
    locked(() -> {
      keyspace.forEach(DB, (k, v) -> {
        if (v.type() == ValueType.STRING) {
          entries.add(Map.entry(new String(k, StandardCharsets.UTF_8), v.payload()));
        }
      });
      return null;
    });
    return entries;
  }

  /** Does nothing: the server closes the keyspace when it stops. */
  @Override
  public void close() {}

  private Keyspace.Change update(String key,
      java.util.function.UnaryOperator<StoredValue> fn) {
    byte[] k = key(key);
    return locked(() -> keyspace.update(DB, k, fn));
  }

  private static boolean sameString(StoredValue value, byte[] expected) {
    return value != null && value.type() == ValueType.STRING
        && java.util.Arrays.equals(value.payload(), expected);
  }
}
