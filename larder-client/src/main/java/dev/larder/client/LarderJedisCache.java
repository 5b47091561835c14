package dev.larder.client;

import dev.larder.Cache;
import dev.larder.Storage;
import dev.larder.client.internal.CommandKeys;
import dev.larder.client.internal.ConnectionIds;
import dev.larder.client.internal.InvalidationStamps;
import dev.larder.client.internal.NearCacheStats;
import dev.larder.client.internal.ReplyCodec;
import dev.larder.client.internal.StoredEntry;
import dev.larder.client.internal.Varint;
import dev.larder.codec.Codecs;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import redis.clients.jedis.csc.CacheConnection;
import redis.clients.jedis.csc.CacheEntry;
import redis.clients.jedis.csc.CacheKey;
import redis.clients.jedis.csc.CacheStats;
import redis.clients.jedis.csc.Cacheable;
import redis.clients.jedis.csc.DefaultCacheable;
import redis.clients.jedis.csc.EvictionPolicy;

/**
 * A Jedis client-side cache ({@link redis.clients.jedis.csc.Cache}) that keeps replies in a Larder
 * cache: as compact bytes, off the heap by default, bounded by the bytes it holds rather than by a
 * count of entries. Give it to a client built for RESP3:
 *
 * <pre>{@code
 * try (LarderJedisCache nearCache = LarderJedisCache.builder().maximumMemory(64L << 20).build();
 *     RedisClient client = RedisClient.builder()
 *         .hostAndPort("127.0.0.1", 6379)
 *         .clientConfig(DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build())
 *         .cache(nearCache)
 *         .build()) {
 *   client.get("user:42"); // from the server, then from the near cache until the key changes
 * }
 * }</pre>
 *
 * <p><b>What is cached.</b> The commands the {@link Cacheable} accepts (Jedis's {@link
 * DefaultCacheable} unless the builder is given another) whose Redis keys are Strings or byte[].
 * Jedis turns tracking on for each connection (CLIENT TRACKING ON), and the server tells the
 * connection when a key it read changes, expires, is evicted or is flushed; from then on no entry
 * that read the key is served. Replies of the common shapes (byte[], String, Long, Double, Boolean,
 * and lists, sets and maps of them) are stored compactly; others in Java serialization, as Jedis's
 * own cache stores every reply. Entries are keyed, as Jedis keys them, by the command's arguments
 * and the object that builds its reply.
 *
 * <p><b>Memory.</b> {@link Builder#maximumMemory} bounds everything the cache holds: the Larder
 * cache (pages, index, policy tables) and the table of invalidation stamps. When full, Larder's
 * eviction policy chooses what leaves.
 *
 * <p><b>Invalidation.</b> An invalidation retires the key's entries at once (no later read returns
 * them) and frees their bytes when they are next looked up, or when eviction reaches them; so
 * {@link #getSize()} counts retired entries until then. See {@code docs/design/client.md}.
 *
 * <p><b>Servers.</b> {@link #compatibilityMode()} is true: Jedis then skips its check that the
 * server is Redis 7.4 or later, and works with any server that serves RESP3 and CLIENT TRACKING
 * (Redis 6 and later, Larder's server).
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads: the clients of a
 * pool share one cache. {@link #close()} releases the memory; close the clients first, since any
 * call afterwards throws {@link IllegalStateException}.
 */
@SuppressWarnings("rawtypes") // Jedis's Cache interface declares raw CacheKey and CacheEntry types.
public final class LarderJedisCache implements redis.clients.jedis.csc.Cache, AutoCloseable {
  /** This thread's last miss, in whichever cache it was. */
  private static final ThreadLocal<PendingRead> pending = new ThreadLocal<>();

  private final Cache<byte[], byte[]> store;
  private final long maximumMemory;
  private final Cacheable cacheable;
  private final InvalidationStamps stamps;
  private final CommandKeys commandKeys = new CommandKeys();
  private final ConnectionIds connections = new ConnectionIds();
  private final EvictionPolicy evictionPolicy = new LarderEviction(this);
  private volatile NearCacheStats stats = new NearCacheStats();

  /**
   * A miss of this thread in {@code cache}: the stamps of its Redis keys read before its command
   * went to the server, which the reply's entry is stored with.
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; read once by the same thread
  private record PendingRead(LarderJedisCache cache, CacheKey cacheKey, byte[] key, int[] stamps) {}

  private LarderJedisCache(Builder b) {
    this.maximumMemory = b.maximumMemory;
    this.cacheable = b.cacheable;
    this.stamps = new InvalidationStamps(b.invalidationSlots());
    this.store =
        Cache.builder(Codecs.bytes(), Codecs.bytes())
            .maximumMemory(b.maximumMemory - stamps.bytes())
            .storage(b.storage)
            .evictionListener((key, value, cause) -> stats.countEviction())
            .build();
  }

  /** Starts a builder: 64 MiB off the heap, Jedis's default cacheable commands. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the entry for the command, or null if there is none that may be served: absent, retired
   * by an invalidation (then it is removed), or read by a connection that is gone.
   */
  @Override
  @SuppressWarnings("unchecked") // the entry is typed by the key it was stored under, as in Jedis
  public CacheEntry get(CacheKey cacheKey) {
    byte[] key = commandKeys.encode(cacheKey);
    byte[][] redisKeys = CommandKeys.redisKeyBytes(cacheKey.getRedisKeys());
    if (key == null || redisKeys == null) {
      return null;
    }
    int[] now = stampsOf(redisKeys);
    byte[] value = store.getIfPresent(key);
    if (value == null) {
      pending.set(new PendingRead(this, cacheKey, key, now));
      return null;
    }
    ByteBuffer in = ByteBuffer.wrap(value);
    CacheConnection owner = connections.connection((int) Varint.read(in));
    boolean current = true;
    for (int stamp : now) {
      current &= (int) Varint.read(in) == stamp;
    }
    if (!current || owner == null) {
      store.remove(key, value);
      if (!current) {
        stats.countInvalidatedEntries(1);
      }
      pending.set(new PendingRead(this, cacheKey, key, now));
      return null;
    }
    return new StoredEntry<>(cacheKey, owner, value, in.position());
  }

  /**
   * Stores the entry's reply, stamped as its keys were when this thread's lookup of the same key
   * missed (or as they are now, if it did not look up first). A reply too large for the bound, or
   * of a connection already gone, is not stored.
   *
   * @return {@code entry}
   */
  @Override
  @SuppressWarnings("ReferenceEquality") // the very key object Jedis looked up before this set
  public CacheEntry set(CacheKey cacheKey, CacheEntry entry) {
    PendingRead read = pending.get();
    byte[] key;
    int[] keyStamps;
    if (read != null && read.cache() == this && read.cacheKey() == cacheKey) {
      pending.remove();
      key = read.key();
      keyStamps = read.stamps();
    } else {
      key = commandKeys.encode(cacheKey);
      byte[][] redisKeys = CommandKeys.redisKeyBytes(cacheKey.getRedisKeys());
      if (key == null || redisKeys == null) {
        return entry;
      }
      keyStamps = stampsOf(redisKeys);
    }
    CacheConnection owner = entry.getConnection();
    if (owner == null) {
      return entry;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    Varint.write(out, connections.idOf(owner));
    for (int stamp : keyStamps) {
      Varint.write(out, Integer.toUnsignedLong(stamp));
    }
    try {
      ReplyCodec.write(entry.getValue(), out);
      store.put(key, out.toByteArray());
      stats.countLoad();
    } catch (IllegalArgumentException notStored) {
      // Larger than the bound can hold, or a reply neither compact nor serializable (which Jedis
      // itself could not have cached): the next read goes to the server, as for any miss.
    }
    return entry;
  }

  /** Removes the command's entry; true if there was one. */
  @Override
  public boolean delete(CacheKey cacheKey) {
    byte[] key = commandKeys.encode(cacheKey);
    return key != null && store.remove(key) != null;
  }

  /** Removes the commands' entries; for each, true if there was one. */
  @Override
  public List<Boolean> delete(List<CacheKey> cacheKeys) {
    List<Boolean> removed = new ArrayList<>(cacheKeys.size());
    for (CacheKey cacheKey : cacheKeys) {
      removed.add(delete(cacheKey));
    }
    return removed;
  }

  /**
   * Retires every entry that reads {@code key} (a byte[] as the server sends it, or a String). The
   * entries are not enumerated (there is no index from Redis keys to entries), so this returns an
   * empty list; Jedis does not use the result.
   *
   * @throws IllegalArgumentException if {@code key} is neither byte[] nor String
   */
  @Override
  public List<CacheKey> deleteByRedisKey(Object key) {
    byte[] bytes = CommandKeys.redisKeyBytes(key);
    if (bytes == null) {
      throw new IllegalArgumentException(
          "a Redis key is a byte[] or a String, not " + (key == null ? null : key.getClass()));
    }
    stamps.invalidate(bytes);
    stats.countInvalidationMessage();
    return List.of();
  }

  /**
   * Retires every entry that reads any of {@code keys}; with null (the server's message after a
   * flush), every entry. Returns an empty list, as {@link #deleteByRedisKey} does.
   */
  @Override
  public List<CacheKey> deleteByRedisKeys(List keys) {
    if (keys == null) {
      flush();
      return List.of();
    }
    for (Object key : keys) {
      deleteByRedisKey(key);
    }
    return List.of();
  }

  /** Retires and removes every entry; returns how many there were. */
  @Override
  public int flush() {
    int size = getSize();
    stamps.invalidateAll();
    store.invalidateAll();
    stats.countFlush();
    return size;
  }

  /**
   * Whether the command may be cached: the {@link Cacheable} accepts it, and its keys are bytes.
   */
  @Override
  public boolean isCacheable(CacheKey cacheKey) {
    List<Object> redisKeys = redisKeysOf(cacheKey);
    return cacheable.isCacheable(cacheKey.getRedisCommand(), redisKeys)
        && CommandKeys.redisKeyBytes(redisKeys) != null;
  }

  private static List<Object> redisKeysOf(CacheKey<?> cacheKey) {
    return cacheKey.getRedisKeys();
  }

  /** Whether an entry is stored for the command (possibly retired, not yet removed). */
  @Override
  public boolean hasCacheKey(CacheKey cacheKey) {
    byte[] key = commandKeys.encode(cacheKey);
    return key != null && store.containsKey(key);
  }

  /** Returns the number of stored entries, retired ones not yet removed included. */
  @Override
  public int getSize() {
    return (int) Math.min(Integer.MAX_VALUE, store.estimatedSize());
  }

  /**
   * Returns {@link Integer#MAX_VALUE}: the cache has no bound on its number of entries, only on its
   * bytes ({@link #maximumMemory()}).
   */
  @Override
  public int getMaxSize() {
    return Integer.MAX_VALUE;
  }

  /** Returns the byte bound the cache was built with. */
  public long maximumMemory() {
    return maximumMemory;
  }

  /** Returns the bytes the cache holds: the Larder cache's {@code memoryUsed()} and the stamps. */
  public long memoryUsed() {
    return store.memoryUsed() + stamps.bytes();
  }

  /**
   * Returns the entries that may be served now: each with a {@link CacheKey} equal to the one it
   * was stored under (rebuilt from the stored command and the number of its form, see {@code
   * CommandKeys}), its connection and its reply. Entries retired by an invalidation, or whose
   * connection is gone, are left out. A snapshot, taken by a walk of the whole cache that does not
   * count as accesses; entries written meanwhile may or may not be in it.
   */
  @Override
  public Collection<CacheEntry> getCacheEntries() {
    List<CacheEntry> entries = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : store.asMap().entrySet()) {
      CacheKey<?> cacheKey = commandKeys.decode(e.getKey());
      CacheEntry<?> entry = servable(cacheKey, e.getValue());
      if (entry != null) {
        entries.add(entry);
      }
    }
    return entries;
  }

  /** The stored entry if its keys' stamps are current and its connection is open, else null. */
  private CacheEntry<?> servable(CacheKey<?> cacheKey, byte[] value) {
    byte[][] redisKeys = CommandKeys.redisKeyBytes(cacheKey.getRedisKeys());
    ByteBuffer in = ByteBuffer.wrap(value);
    CacheConnection owner = connections.connection((int) Varint.read(in));
    boolean current = owner != null && redisKeys != null;
    for (int i = 0; current && i < redisKeys.length; i++) {
      current = (int) Varint.read(in) == stamps.stamp(redisKeys[i]);
    }
    return current ? newEntry(cacheKey, owner, value, in.position()) : null;
  }

  @SuppressWarnings({"unchecked", "rawtypes"}) // the reply was stored under this very key
  private static CacheEntry<?> newEntry(
      CacheKey<?> key, CacheConnection owner, byte[] value, int replyOffset) {
    return new StoredEntry(key, owner, value, replyOffset);
  }

  /** Returns a description of Larder's policy, which evicts on its own as the cache is written. */
  @Override
  public EvictionPolicy getEvictionPolicy() {
    return evictionPolicy;
  }

  @Override
  public CacheStats getStats() {
    return stats;
  }

  @Override
  public CacheStats getAndResetStats() {
    CacheStats previous = stats;
    stats = new NearCacheStats();
    return previous;
  }

  /** True: Jedis is to work with any server that serves RESP3 and CLIENT TRACKING. */
  @Override
  public boolean compatibilityMode() {
    return true;
  }

  /** Releases the cache's memory. Idempotent. */
  @Override
  public void close() {
    store.close();
  }

  private int[] stampsOf(byte[][] redisKeys) {
    int[] now = new int[redisKeys.length];
    for (int i = 0; i < now.length; i++) {
      now[i] = stamps.stamp(redisKeys[i]);
    }
    return now;
  }

  /** Settings of a {@link LarderJedisCache}. Not thread-safe. */
  public static final class Builder {
    private long maximumMemory = 64L << 20;
    private Storage storage = Storage.OFF_HEAP;
    private Cacheable cacheable = DefaultCacheable.INSTANCE;
    private int invalidationSlots;

    private Builder() {}

    /**
     * Bounds everything the cache holds, in bytes; 64 MiB by default.
     *
     * @param bytes at least 1 MiB
     * @return this builder
     * @throws IllegalArgumentException if smaller
     */
    public Builder maximumMemory(long bytes) {
      if (bytes < 1L << 20) {
        throw new IllegalArgumentException("maximumMemory must be at least 1 MiB: " + bytes);
      }
      this.maximumMemory = bytes;
      return this;
    }

    /**
     * Where the replies' bytes live: off the heap (the default) or in heap-backed pages.
     *
     * @param storage the storage
     * @return this builder
     */
    public Builder storage(Storage storage) {
      this.storage = Objects.requireNonNull(storage, "storage");
      return this;
    }

    /**
     * Which commands may be cached; Jedis's {@link DefaultCacheable} by default.
     *
     * @param cacheable decides by command and keys
     * @return this builder
     */
    public Builder cacheable(Cacheable cacheable) {
      this.cacheable = Objects.requireNonNull(cacheable, "cacheable");
      return this;
    }

    /**
     * The number of invalidation stamps: a power of two. By default one for every 256 bytes of the
     * bound (1.6% of it), between 1,024 and 4,194,304. More stamps mean fewer entries retired with
     * another key that shares their stamp.
     *
     * @param slots a power of two between 1 and 2^26
     * @return this builder
     * @throws IllegalArgumentException if not
     */
    public Builder invalidationSlots(int slots) {
      if (slots < 1 || slots > 1 << 26 || Integer.bitCount(slots) != 1) {
        throw new IllegalArgumentException(
            "invalidationSlots must be a power of two between 1 and 2^26: " + slots);
      }
      this.invalidationSlots = slots;
      return this;
    }

    private int invalidationSlots() {
      if (invalidationSlots > 0) {
        return invalidationSlots;
      }
      long wanted = Math.clamp(maximumMemory / 256, 1024, 1 << 22);
      return Integer.highestOneBit((int) wanted);
    }

    /**
     * Builds the cache.
     *
     * @return a new cache
     * @throws IllegalArgumentException if the stamps leave Larder less than 64 KiB of the bound
     */
    public LarderJedisCache build() {
      if (maximumMemory - 4L * invalidationSlots() < 64 * 1024) {
        throw new IllegalArgumentException(
            "invalidationSlots leave less than 64 KiB of maximumMemory for the entries");
      }
      return new LarderJedisCache(this);
    }
  }
}
