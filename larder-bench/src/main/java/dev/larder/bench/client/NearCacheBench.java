package dev.larder.bench.client;

import dev.larder.bench.measure.MemoryProbe;
import dev.larder.bench.measure.MemorySnapshot;
import dev.larder.bench.scenario.Row;
import dev.larder.client.LarderJedisCache;
import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.util.Map;
import java.util.function.BiConsumer;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.csc.Cache;
import redis.clients.jedis.csc.CacheConnection;
import redis.clients.jedis.csc.CacheEntry;
import redis.clients.jedis.csc.CacheKey;
import redis.clients.jedis.csc.DefaultCache;

/**
 * One near cache measured in one JVM, beside Larder's server started in the same JVM on loopback.
 *
 * <p>Memory: GET replies ({@code String}s of the value size under 12-character keys) are stored in
 * the cache as Jedis stores a miss's reply: a {@link CacheEntry} built from the command's {@link
 * CacheKey} and handed to {@link Cache#set}. Larder's cache is filled with three times what its
 * bound could hold of the bare payload, so it ends full and evicting: the entries it holds then are
 * its count, and the process's growth (heap after full collections, plus resident set) is reported
 * beside its own figure. Jedis's {@link DefaultCache} has no byte bound: it is filled until the
 * heap in use has grown by the budget (checked after full collections), and the count is scaled to
 * the budget exactly.
 *
 * <p>Read rate: one thread reads {@code readKeys} keys round-robin for a fixed time through a
 * {@link RedisClient} with the near cache (every key read once first, so every timed read is a
 * hit), or without one (each read a GET to the server).
 */
public final class NearCacheBench {
  /** The implementations, as rows name them. */
  public static final String LARDER = "Larder";

  /** Jedis's own cache, in compatibility mode. */
  public static final String JEDIS_DEFAULT = "Jedis-DefaultCache";

  /** No near cache: every read a GET to the server. */
  public static final String PLAIN_GET = "GET-to-server";

  private final long budget;
  private final int valueBytes;
  private final int readKeys;
  private final long readMillis;
  private final BiConsumer<String, Long> progress;

  /**
   * @param budget bytes each near cache may hold
   * @param valueBytes the size of each value
   * @param readKeys how many keys the read-rate part reads
   * @param readMillis how long it reads
   * @param progress told (what, done) now and then
   */
  public NearCacheBench(
      long budget,
      int valueBytes,
      int readKeys,
      long readMillis,
      BiConsumer<String, Long> progress) {
    this.budget = budget;
    this.valueBytes = valueBytes;
    this.readKeys = readKeys;
    this.readMillis = readMillis;
    this.progress = progress;
  }

  /** A DefaultCache that lets Jedis cache from servers other than Redis 7.4 and later. */
  static final class CompatibleDefaultCache extends DefaultCache {
    CompatibleDefaultCache(int maxSize) {
      super(maxSize);
    }

    @Override
    public boolean compatibilityMode() {
      return true;
    }
  }

  /**
   * Measures one implementation.
   *
   * @param implementation one of {@link #LARDER}, {@link #JEDIS_DEFAULT}, {@link #PLAIN_GET}
   * @return its row
   * @throws Exception if the server or a client fails
   */
  public Row run(String implementation) throws Exception {
    try (LarderServer server =
        LarderServer.start(
            ServerConfig.of(Map.of("resp-port", "0", "memcache-port", "-1", "http-port", "-1")))) {
      HostAndPort address = new HostAndPort("127.0.0.1", server.respPort());
      Row row = Row.of(implementation).put("budgetBytes", budget).put("valueBytes", valueBytes);
      if (!implementation.equals(PLAIN_GET)) {
        measureMemory(implementation, address, row);
      }
      load(address);
      row.put("readKeys", readKeys).put("readsPerSecond", readRate(implementation, address));
      return row;
    }
  }

  private static JedisClientConfig resp3() {
    return DefaultJedisClientConfig.builder()
        .protocol(RedisProtocol.RESP3)
        .timeoutMillis(30_000)
        .build();
  }

  private static String key(long i) {
    return String.format("key:%08d", i);
  }

  private String value(long i) {
    String digits = Long.toString(i);
    return "v".repeat(Math.max(0, valueBytes - digits.length())) + digits;
  }

  private void measureMemory(String implementation, HostAndPort address, Row row) throws Exception {
    if (implementation.equals(LARDER)) {
      measureLarder(address, row);
    } else {
      measureDefaultCache(address, row);
    }
  }

  private void measureLarder(HostAndPort address, Row row) throws Exception {
    MemoryProbe probe = new MemoryProbe(20);
    MemorySnapshot before = probe.settle();
    try (LarderJedisCache cache = LarderJedisCache.builder().maximumMemory(budget).build();
        CacheConnection connection = connect(address, cache)) {
      fill(cache, connection, 0, 3 * budget / (12 + valueBytes));
      MemorySnapshot after = probe.settle();
      long heap = after.heapDelta(before);
      long resident = after.nativeDelta(before);
      row.put("entries", (long) cache.getSize())
          .put("bytesPerEntry", (double) cache.memoryUsed() / cache.getSize())
          .put("reportedBytes", cache.memoryUsed())
          .put("heapBytes", heap)
          .put("nativeBytes", resident)
          .put("measuredBytesPerEntry", (double) (heap + resident) / cache.getSize())
          .put("heapStable", after.stable());
    }
  }

  /**
   * Jedis's cache is sized, as a user would size it, for the entries the budget holds: a pilot of
   * 10,000 entries gives the bytes per entry, and its maximum size is the count that fits the
   * budget, with a tenth more (its LRU map is allocated for the maximum at the first entry).
   */
  private void measureDefaultCache(HostAndPort address, Row row) throws Exception {
    MemoryProbe probe = new MemoryProbe(20);
    long pilot = 10_000;
    MemorySnapshot before = probe.settle();
    double pilotPerEntry;
    Cache pilotCache = new CompatibleDefaultCache((int) pilot);
    try (CacheConnection connection = connect(address, pilotCache)) {
      fill(pilotCache, connection, 0, pilot);
      pilotPerEntry = (double) probe.settle().heapDelta(before) / pilot;
      pilotCache.flush();
    }
    int maxSize = (int) Math.min(Integer.MAX_VALUE - 8, 1.1 * budget / pilotPerEntry);
    before = probe.settle();
    Cache cache = new CompatibleDefaultCache(maxSize);
    try (CacheConnection connection = connect(address, cache)) {
      long filled = 0;
      long heap = 0;
      MemorySnapshot after = before;
      // Grow in steps estimated from the bytes per entry so far, until the heap grew by the
      // budget (or to within 1% of it).
      long step = Math.max(1_000, (long) (budget / pilotPerEntry / 2));
      while (heap < budget * 99 / 100 && filled < maxSize) {
        long n = Math.min(step, maxSize - filled);
        fill(cache, connection, filled, filled + n);
        filled += n;
        after = probe.settle();
        heap = after.heapDelta(before);
        double perEntry = Math.max(1.0, (double) heap / filled);
        step = Math.max(1_000, (long) ((budget - heap) / perEntry));
        progress.accept("filling " + JEDIS_DEFAULT, filled);
      }
      row.put("entries", Math.round((double) filled * budget / heap))
          .put("bytesPerEntry", (double) heap / filled)
          .put("filledEntries", filled)
          .put("heapBytes", heap)
          .put("measuredBytesPerEntry", (double) heap / filled)
          .put("heapStable", after.stable());
      cache.flush();
    }
  }

  private static CacheConnection connect(HostAndPort address, Cache cache) {
    return new CacheConnection(new DefaultJedisSocketFactory(address, resp3()), resp3(), cache);
  }

  @SuppressWarnings({"unchecked", "rawtypes"}) // Jedis's cache API takes raw keys and entries
  private void fill(Cache cache, CacheConnection connection, long from, long to) {
    CommandObjects commands = new CommandObjects();
    for (long i = from; i < to; i++) {
      CacheKey key = new CacheKey<>(commands.get(key(i)));
      cache.set(key, new CacheEntry<>(key, value(i), connection));
      if ((i & 0xFFFF) == 0) {
        progress.accept("filling", i - from);
      }
    }
  }

  private void load(HostAndPort address) {
    try (Jedis jedis = new Jedis(address)) {
      Pipeline p = jedis.pipelined();
      for (int i = 0; i < readKeys; i++) {
        p.set(key(i), value(i));
      }
      p.sync();
    }
  }

  private double readRate(String implementation, HostAndPort address) {
    try (LarderJedisCache larder =
            implementation.equals(LARDER)
                ? LarderJedisCache.builder().maximumMemory(budget).build()
                : null;
        RedisClient client = client(implementation, address, larder)) {
      for (int i = 0; i < readKeys; i++) {
        check(client.get(key(i)), i);
      }
      long reads = 0;
      long start = System.nanoTime();
      long end = start + readMillis * 1_000_000L;
      long now = start;
      while (now < end) {
        for (int i = 0; i < 1_000; i++) {
          int k = (int) (reads++ % readKeys);
          check(client.get(key(k)), k);
        }
        now = System.nanoTime();
      }
      return reads * 1e9 / (now - start);
    }
  }

  private void check(String got, long i) {
    if (!value(i).equals(got)) {
      throw new IllegalStateException(key(i) + " read " + got);
    }
  }

  private RedisClient client(String implementation, HostAndPort address, LarderJedisCache larder) {
    Cache cache =
        switch (implementation) {
          case LARDER -> larder;
          case JEDIS_DEFAULT -> new CompatibleDefaultCache(readKeys * 2);
          default -> null;
        };
    RedisClient.Builder builder = RedisClient.builder();
    builder.hostAndPort(address.getHost(), address.getPort()).clientConfig(resp3());
    if (cache != null) {
      builder.cache(cache);
    }
    return builder.build();
  }
}
