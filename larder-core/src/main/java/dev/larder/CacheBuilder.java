package dev.larder;

import dev.larder.codec.Codec;
import dev.larder.codec.ValueDictionary;
import dev.larder.internal.CacheConfig;
import dev.larder.internal.LarderCache;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * Configures and builds a {@link Cache}. A bound is required: {@link #maximumMemory}, {@link
 * #maximumEntries}, or an explicit {@link #unbounded()}.
 *
 * <p>Defaults: storage {@link Storage#OFF_HEAP}; no expiry; no loader; no listener; statistics off;
 * background work on {@link ForkJoinPool#commonPool()}; the system ticker; a hot tier of {@value
 * #DEFAULT_HOT_TIER_SHARE} of the bound where keys and values are immutable (see {@link
 * #hotTier(long)}).
 *
 * <p>Not thread-safe; a builder is meant to be used by one thread, and may build many caches.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class CacheBuilder<K, V> {

  private final Codec<K> keyCodec;
  private final Codec<V> valueCodec;
  private long maximumMemory = -1;
  private long maximumEntries = -1;
  private boolean unbounded;
  private Storage storage = Storage.OFF_HEAP;
  private long expireAfterWriteNanos = -1;
  private long expireAfterAccessNanos = -1;
  private CacheLoader<? super K, V> loader;
  private RemovalListener<? super K, ? super V> removalListener;
  private RemovalListener<? super K, ? super V> evictionListener;
  private boolean recordStats;
  private Executor executor = ForkJoinPool.commonPool();
  private Ticker ticker = Ticker.system();
  private int segments = -1;
  private long initialCapacity;
  private ValueDictionary dictionary;
  private String managementName;
  private long hotTierBytes = -1;
  private double hotTierShare = -1;

  /** The hot tier's share of the bound where the key and value codecs allow one. */
  public static final double DEFAULT_HOT_TIER_SHARE = 0.1;

  CacheBuilder(Codec<K> keyCodec, Codec<V> valueCodec) {
    this.keyCodec = requireDeterministic(Objects.requireNonNull(keyCodec, "keyCodec"));
    this.valueCodec = Objects.requireNonNull(valueCodec, "valueCodec");
  }

  // The store finds a key by its bytes, so a codec that may encode equal keys differently would
  // make lookups miss entries the cache holds and let a put add a second entry for one key.
  private static <K> Codec<K> requireDeterministic(Codec<K> keyCodec) {
    if (!keyCodec.deterministic()) {
      throw new IllegalArgumentException(
          "the key codec for "
              + keyCodec.type().getName()
              + " is not deterministic: equal keys may encode to different bytes, and the cache"
              + " compares keys by their bytes, so lookups would miss. Use a deterministic codec:"
              + " Codecs.canonicalSet or Codecs.canonicalMap for sets and maps (derived codecs such"
              + " as Codecs.record use them), and no dictionary substitution in keys");
    }
    return keyCodec;
  }

  /**
   * Bounds the cache by the bytes it reserves (pages, index, policy metadata). The bound is split
   * evenly among the segments (one below 32 MiB, up to 16 from 256 MiB; see {@link #segments}), and
   * an entry never spans two segments, so the largest entry the cache accepts is a little under
   * {@code bytes / segments}: a larger one is refused by {@link Cache#put} with an {@link
   * IllegalArgumentException} that names the limit.
   *
   * @param bytes the bound; at least 64 KiB
   * @return this builder
   * @throws IllegalArgumentException if too small
   * @throws IllegalStateException if another bound was set
   */
  public CacheBuilder<K, V> maximumMemory(long bytes) {
    requireNoBound();
    if (bytes < 64 * 1024) {
      throw new IllegalArgumentException("maximumMemory must be at least 65536 bytes: " + bytes);
    }
    maximumMemory = bytes;
    return this;
  }

  /**
   * Bounds the cache by its number of entries; memory then grows with the entries. The eviction
   * policy spends about 12 bytes an entry of the bound on its tables; up to 65,536 entries a
   * segment they are allocated when the cache is built, above that they grow with the entries, so a
   * bound far above what the cache will hold (even {@code Long.MAX_VALUE}) costs nothing up front.
   *
   * @param entries the bound; positive
   * @return this builder
   * @throws IllegalArgumentException if not positive
   * @throws IllegalStateException if another bound was set
   */
  public CacheBuilder<K, V> maximumEntries(long entries) {
    requireNoBound();
    if (entries <= 0) {
      throw new IllegalArgumentException("maximumEntries must be positive: " + entries);
    }
    maximumEntries = entries;
    return this;
  }

  /**
   * Builds a cache with no bound: it never evicts, and its memory grows with its content.
   *
   * @return this builder
   * @throws IllegalStateException if another bound was set
   */
  public CacheBuilder<K, V> unbounded() {
    requireNoBound();
    unbounded = true;
    return this;
  }

  /**
   * Returns this builder.
   *
   * @param storage off-heap pages (default) or heap-backed pages
   */
  public CacheBuilder<K, V> storage(Storage storage) {
    this.storage = Objects.requireNonNull(storage, "storage");
    return this;
  }

  /**
   * Entries expire this long after they were written.
   *
   * @param duration positive
   * @return this builder
   */
  public CacheBuilder<K, V> expireAfterWrite(Duration duration) {
    expireAfterWriteNanos = positiveNanos(duration, "expireAfterWrite");
    return this;
  }

  /**
   * Entries expire this long after they were last read or written. {@link Cache#containsKey} and
   * iterating {@link Cache#asMap()}'s views are not reads for this purpose.
   *
   * @param duration positive
   * @return this builder
   */
  public CacheBuilder<K, V> expireAfterAccess(Duration duration) {
    expireAfterAccessNanos = positiveNanos(duration, "expireAfterAccess");
    return this;
  }

  /**
   * Returns this builder.
   *
   * @param loader computes values on a miss in {@link Cache#get(Object)} and getAll
   */
  public CacheBuilder<K, V> loader(CacheLoader<? super K, V> loader) {
    this.loader = Objects.requireNonNull(loader, "loader");
    return this;
  }

  /**
   * Returns this builder.
   *
   * @param listener told of every removal, on the executor
   */
  public CacheBuilder<K, V> removalListener(RemovalListener<? super K, ? super V> listener) {
    this.removalListener = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /**
   * A listener told only of evictions: entries removed for the bound ({@link RemovalCause#SIZE}) or
   * because they expired ({@link RemovalCause#EXPIRED}), on the executor, as a removal listener is.
   * Unlike a {@link #removalListener}, it costs nothing on replacements and explicit removals: the
   * cache copies out only the entries it will tell of, so a cache whose owner counts evictions does
   * not copy the old value of every overwritten key. May be set beside a removal listener; an
   * eviction is then told to both.
   *
   * @param listener told of every eviction, on the executor
   * @return this builder
   */
  public CacheBuilder<K, V> evictionListener(RemovalListener<? super K, ? super V> listener) {
    this.evictionListener = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /**
   * Turns statistics on: counters and get/put/load latency histograms.
   *
   * @return this builder
   */
  public CacheBuilder<K, V> recordStats() {
    this.recordStats = true;
    return this;
  }

  /**
   * Returns this builder.
   *
   * @param executor runs removal listeners and periodic maintenance
   */
  public CacheBuilder<K, V> executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    return this;
  }

  /**
   * Returns this builder.
   *
   * @param ticker the time source for expiry and latency
   */
  public CacheBuilder<K, V> ticker(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    return this;
  }

  /**
   * Declares the value-substitution dictionary that this cache's codecs use, so that the cache
   * counts it: {@link Cache#memoryUsed()} includes the dictionary's memory, and with {@link
   * #maximumMemory} the dictionary's own maximum is set aside inside the cache's bound. A
   * dictionary may be shared by several caches; each then counts it.
   *
   * @param dictionary the dictionary the codecs were built from
   * @return this builder
   */
  public CacheBuilder<K, V> dictionary(ValueDictionary dictionary) {
    this.dictionary = Objects.requireNonNull(dictionary, "dictionary");
    return this;
  }

  /**
   * Overrides the number of lock stripes. By default it is derived from the bound: small caches get
   * one segment so that their policy sees every entry, large ones up to 16. Each segment holds its
   * share of the bound, so a bound too small to give every segment at least one entry ({@link
   * #maximumEntries}) or 64 KiB ({@link #maximumMemory}) gets the largest power of two of segments
   * that it can, and a bound too large for the segments' indexes (about 3.5 million entries, or 128
   * MiB of the smallest entries, a segment) gets the smallest power of two of segments that holds
   * it, up to 256: the bound is a contract, the count a hint. An unbounded cache holds at most
   * about 3.5 million entries a segment. However many segments it will have, a cache starts with
   * one, which it splits into all of them once it holds 1 MiB or 4096 entries (or a quarter of one
   * segment's share of the bound, if less), so that a small cache pays for one segment.
   *
   * @param count a power of two from 1 to 256
   * @return this builder
   */
  public CacheBuilder<K, V> segments(int count) {
    if (count < 1 || count > 256 || Integer.bitCount(count) != 1) {
      throw new IllegalArgumentException("segments must be a power of two in [1, 256]: " + count);
    }
    this.segments = count;
    return this;
  }

  /**
   * Sizes the cache's indexes for this many entries when they are made, so that filling the cache
   * up to that many never grows (rehashes) them; a cache that will be filled at once (from a file,
   * at a restart) saves that work. A hint, not a bound: the cache may hold more (its indexes then
   * grow as usual) or fewer. An index takes about 10 bytes an entry, counted in {@link
   * Cache#memoryUsed()} from the start and within {@link #maximumMemory}: a capacity that the bound
   * cannot hold is not reserved (the index then starts small), and one above {@link
   * #maximumEntries} is taken as that bound. The cache also starts with all its segments rather
   * than one (see {@link #segments}) when the capacity is more than one segment would hold before
   * splitting.
   *
   * @param entries the expected number of entries, 0 (the default) for none
   * @return this builder
   * @throws IllegalArgumentException if negative
   */
  public CacheBuilder<K, V> initialCapacity(long entries) {
    if (entries < 0) {
      throw new IllegalArgumentException("initialCapacity must be at least 0: " + entries);
    }
    this.initialCapacity = entries;
    return this;
  }

  /**
   * Registers the cache with the platform MBean server as a {@link
   * dev.larder.management.CacheMXBean} named {@code dev.larder:type=Cache,name="<name>"} (the name
   * quoted as JMX allows, so any string is a valid name). {@link Cache#close()} unregisters it. A
   * registered cache is reachable from the MBean server until it is closed, so it is never freed by
   * the garbage collector alone.
   *
   * @param name the name the cache is known by in JMX consoles; any non-empty string
   * @return this builder
   */
  public CacheBuilder<K, V> managementName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("managementName must not be empty");
    }
    this.managementName = name;
    return this;
  }

  /**
   * Sizes the <b>hot tier</b> in bytes: the cache keeps the decoded values of its most read entries
   * as objects, beside their compact bytes, and a read of one returns that same instance without
   * encoding the key or decoding the value, at the cost of an object cache's read. Only for
   * {@linkplain Codec#immutable() immutable} key and value codecs (strings, boxed primitives,
   * enums, {@code java.time} values, UUID, BigDecimal, BigInteger, records of such values, codecs
   * that declare themselves immutable), since every reader of a key then shares one instance;
   * {@code byte[]} and other mutable values never enter it. Entries enter when the cache's
   * frequency sketch counts them as read more often than the tier's least read entry; every write,
   * removal, eviction, expiry and invalidation of a key takes its hot entry out (or replaces it
   * with the written value) in the same step, so a hot read never returns a value older than the
   * cache holds.
   *
   * <p>The tier's bytes, estimated from the objects' layout (its entries, their keys and values),
   * count in {@link Cache#memoryUsed()}, and with {@link #maximumMemory} they come out of that
   * bound: the compact store gets the rest. By default a cache whose codecs allow it gets a tier of
   * {@value #DEFAULT_HOT_TIER_SHARE} of its bound ({@link #hotTierShare}); an unbounded cache, or
   * one that expires entries after access, has none unless asked.
   *
   * @param bytes the tier's bound; 0 turns the tier off
   * @return this builder
   * @throws IllegalArgumentException if negative
   */
  public CacheBuilder<K, V> hotTier(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("hotTier must not be negative: " + bytes);
    }
    hotTierBytes = bytes;
    hotTierShare = -1;
    return this;
  }

  /**
   * Sizes the hot tier ({@link #hotTier(long)}) as a share of the bound: of the bytes of {@link
   * #maximumMemory}, or of the entries of {@link #maximumEntries} (the tier then holds at most that
   * many entries, and its bytes count in {@link Cache#memoryUsed()}).
   *
   * @param share from 0 (no tier) to 0.9; the default is {@value #DEFAULT_HOT_TIER_SHARE}
   * @return this builder
   * @throws IllegalArgumentException if outside [0, 0.9]
   */
  public CacheBuilder<K, V> hotTierShare(double share) {
    if (!(share >= 0 && share <= 0.9)) {
      throw new IllegalArgumentException("hotTierShare must be within [0, 0.9]: " + share);
    }
    hotTierShare = share;
    hotTierBytes = -1;
    return this;
  }

  /**
   * Returns a new cache.
   *
   * @throws IllegalStateException if no bound was chosen, or if a cache is registered with JMX
   *     under the same {@linkplain #managementName management name} already
   */
  public Cache<K, V> build() {
    if (maximumMemory < 0 && maximumEntries < 0 && !unbounded) {
      throw new IllegalStateException(
          "choose a bound: maximumMemory(bytes), maximumEntries(n) or unbounded()");
    }
    if (expireAfterWriteNanos > 0 && expireAfterAccessNanos > 0) {
      throw new IllegalStateException("choose one of expireAfterWrite and expireAfterAccess");
    }
    long storeMemory = maximumMemory;
    if (dictionary != null && maximumMemory > 0) {
      storeMemory = maximumMemory - dictionary.maximumMemory();
      if (storeMemory < 64 * 1024) {
        throw new IllegalStateException(
            "maximumMemory "
                + maximumMemory
                + " leaves less than"
                + " 64 KiB beside the dictionary's maximum of "
                + dictionary.maximumMemory());
      }
    }
    HotTierSizing tier = HotTierSizing.of(this, storeMemory);
    if (tier.bytes() > 0 && maximumMemory > 0) {
      storeMemory -= tier.bytes();
    }
    CacheConfig<K, V> config =
        new CacheConfig<>(
            keyCodec,
            valueCodec,
            storeMemory,
            maximumEntries,
            storage,
            expireAfterWriteNanos,
            expireAfterAccessNanos,
            loader,
            removalListener,
            evictionListener,
            recordStats,
            executor,
            ticker,
            segments,
            dictionary,
            tier.bytes(),
            tier.entries(),
            initialCapacity);
    LarderCache<K, V> cache = new LarderCache<>(config);
    if (managementName != null) {
      try {
        cache.registerMXBean(managementName);
      } catch (RuntimeException e) {
        cache.close();
        throw e;
      }
    }
    return cache;
  }

  /**
   * The hot tier's bounds as the builder's settings ask: bytes (taken out of a memory bound) and
   * entries, or none.
   */
  private record HotTierSizing(long bytes, long entries) {
    static final HotTierSizing NONE = new HotTierSizing(0, Long.MAX_VALUE);

    static HotTierSizing of(CacheBuilder<?, ?> b, long storeMemory) {
      boolean asked = b.hotTierBytes > 0 || b.hotTierShare > 0;
      boolean off = b.hotTierBytes == 0 || b.hotTierShare == 0;
      String refusal = b.hotTierRefusal();
      if (off || (!asked && (refusal != null || b.unbounded))) {
        return NONE;
      }
      if (refusal != null) {
        throw new IllegalStateException(
            "no hot tier: " + refusal + "; build without hotTier" + " or with hotTier(0)");
      }
      if (b.hotTierBytes > 0) {
        return bytes(b.hotTierBytes, storeMemory, b.maximumMemory);
      }
      double share = b.hotTierShare > 0 ? b.hotTierShare : DEFAULT_HOT_TIER_SHARE;
      if (b.unbounded) {
        throw new IllegalStateException(
            "hotTierShare needs a bound: give hotTier(bytes) to an" + " unbounded cache");
      }
      if (b.maximumEntries > 0) {
        return new HotTierSizing(
            Long.MAX_VALUE, Math.max(1, (long) Math.ceil(share * b.maximumEntries)));
      }
      long bytes = (long) (share * b.maximumMemory);
      if (!asked && storeMemory - bytes < 64 * 1024) {
        // a bound too small to spare the default share keeps all of it for the store
        return NONE;
      }
      return bytes(bytes, storeMemory, b.maximumMemory);
    }

    private static HotTierSizing bytes(long bytes, long storeMemory, long maximumMemory) {
      if (maximumMemory > 0 && storeMemory - bytes < 64 * 1024) {
        throw new IllegalStateException(
            "a hot tier of "
                + bytes
                + " bytes leaves less than"
                + " 64 KiB of maximumMemory "
                + maximumMemory
                + " for the store");
      }
      return new HotTierSizing(bytes, Long.MAX_VALUE);
    }
  }

  /** Returns why these codecs and settings allow no hot tier, or null if they allow one. */
  private String hotTierRefusal() {
    if (!valueCodec.immutable()) {
      return "values of "
          + valueCodec.type().getTypeName()
          + " may be changed by a caller (the"
          + " value codec is not immutable), so readers cannot share one instance";
    }
    if (!keyCodec.immutable()
        || keyCodec.type() == Float.class
        || keyCodec.type() == Double.class) {
      return "keys of "
          + keyCodec.type().getTypeName()
          + " are not immutable values whose equals"
          + " agrees with their bytes (the tier finds keys by equals and hashCode)";
    }
    if (expireAfterAccessNanos > 0) {
      return "entries expire after access, and a hit in the tier would have to move the"
          + " compact entry's deadline";
    }
    return null;
  }

  private void requireNoBound() {
    if (maximumMemory >= 0 || maximumEntries >= 0 || unbounded) {
      throw new IllegalStateException("a bound was already chosen");
    }
  }

  private static long positiveNanos(Duration duration, String name) {
    Objects.requireNonNull(duration, name);
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + duration);
    }
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }
}
