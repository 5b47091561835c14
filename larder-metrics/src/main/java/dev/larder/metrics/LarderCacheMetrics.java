package dev.larder.metrics;

import dev.larder.Cache;
import dev.larder.CacheStats;
import dev.larder.LatencySummary;
import dev.larder.codec.ValueDictionary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds a Larder {@link Cache}'s figures to a Micrometer {@link MeterRegistry}, under the meter
 * names Micrometer's own cache binders use, so dashboards built for Caffeine or JCache caches show
 * Larder caches unchanged:
 *
 * <ul>
 *   <li>{@code cache.gets} tagged {@code result=hit|miss}, {@code cache.puts}, {@code
 *       cache.evictions} (entries evicted to honour the bound), {@code cache.size};
 *   <li>{@code cache.load} tagged {@code result=success|failure}, as Micrometer's Caffeine binder
 *       names loads;
 *   <li>Larder's own, under {@code larder.cache}: {@code larder.cache.removals} tagged {@code
 *       cause=explicit|expired}; {@code larder.cache.memory.used} and {@code
 *       larder.cache.memory.max} (bytes; the latter only for a byte-bounded cache); {@code
 *       larder.cache.entries.max} (entry-bounded caches); {@code larder.cache.latency} tagged
 *       {@code operation=get|put|load} and {@code quantile=0.5|0.99} (a time gauge of the latency
 *       since the cache was built); and, for a cache with a value dictionary, {@code
 *       larder.cache.dictionary.entries} and {@code larder.cache.dictionary.memory.used}.
 * </ul>
 *
 * <p>Every meter carries the tag {@code cache=<name>} and the tags given. Counts come from {@link
 * Cache#stats()}, so they stay zero unless the cache was built with {@code recordStats()}: binding
 * such a cache logs a warning that says so. Size and memory are reported either way.
 *
 * <p>The binder holds the cache weakly (as Micrometer's binders do). Once the cache is closed or
 * collected its gauges read NaN and its counters 0; remove its meters from the registry when the
 * cache is closed if a scrape must not show them. Thread-safe.
 */
public final class LarderCacheMetrics extends CacheMeterBinder<Cache<?, ?>> {

  private static final System.Logger LOG = System.getLogger(LarderCacheMetrics.class.getName());

  /**
   * @param cache the cache to report
   * @param cacheName the value of the {@code cache} tag
   * @param tags further tags for every meter
   */
  public LarderCacheMetrics(Cache<?, ?> cache, String cacheName, Iterable<Tag> tags) {
    this(cache, cacheName, tags, "build it with recordStats()");
  }

  /**
   * As {@link #LarderCacheMetrics(Cache, String, Iterable)}, with the hint the warning about a
   * cache without statistics gives, phrased for how the cache was configured (the Spring Boot
   * starter names its property).
   *
   * @param cache the cache to report
   * @param cacheName the value of the {@code cache} tag
   * @param tags further tags for every meter
   * @param statisticsHint how to turn statistics on, e.g. {@code "build it with recordStats()"}
   */
  public LarderCacheMetrics(
      Cache<?, ?> cache, String cacheName, Iterable<Tag> tags, String statisticsHint) {
    super(
        Objects.requireNonNull(cache, "cache"),
        Objects.requireNonNull(cacheName, "cacheName"),
        Objects.requireNonNull(tags, "tags"));
    Objects.requireNonNull(statisticsHint, "statisticsHint");
    if (!cache.recordsStats()) {
      LOG.log(
          System.Logger.Level.WARNING,
          "Larder cache {0} does not record statistics: its"
              + " cache.gets, cache.puts, cache.evictions and cache.load meters will stay at 0"
              + " ({1})",
          cacheName,
          statisticsHint);
    }
  }

  /**
   * Binds the cache's meters to the registry.
   *
   * @param registry where the meters go
   * @param cache the cache to report
   * @param cacheName the value of the {@code cache} tag
   * @param tags further tags, as key-value pairs
   * @param <C> the cache type
   * @return the cache, for chaining
   */
  public static <C extends Cache<?, ?>> C monitor(
      MeterRegistry registry, C cache, String cacheName, String... tags) {
    new LarderCacheMetrics(cache, cacheName, Tags.of(tags)).bindTo(registry);
    return cache;
  }

  @Override
  protected Long size() {
    Cache<?, ?> cache = getCache();
    return cache == null ? null : ifOpen(cache, Cache::estimatedSize, null);
  }

  @Override
  protected long hitCount() {
    return stat(CacheStats::hitCount);
  }

  @Override
  protected Long missCount() {
    return stat(CacheStats::missCount);
  }

  @Override
  protected Long evictionCount() {
    return stat(CacheStats::evictionCount);
  }

  @Override
  protected long putCount() {
    return stat(CacheStats::putCount);
  }

  @Override
  protected void bindImplementationSpecificMetrics(MeterRegistry registry) {
    Cache<?, ?> cache = getCache();
    if (cache == null) {
      return;
    }
    Iterable<Tag> tags = getTagsWithCacheName();
    counter(
        registry,
        "cache.load",
        "loads that returned a value",
        cache,
        CacheStats::loadSuccessCount,
        Tags.of(tags).and("result", "success"));
    counter(
        registry,
        "cache.load",
        "loads that threw or returned null",
        cache,
        CacheStats::loadFailureCount,
        Tags.of(tags).and("result", "failure"));
    counter(
        registry,
        "larder.cache.removals",
        "entries removed explicitly",
        cache,
        CacheStats::removalCount,
        Tags.of(tags).and("cause", "explicit"));
    counter(
        registry,
        "larder.cache.removals",
        "entries removed because they expired",
        cache,
        CacheStats::expirationCount,
        Tags.of(tags).and("cause", "expired"));

    Gauge.builder(
            "larder.cache.memory.used",
            cache,
            c -> ifOpen(c, x -> (double) x.memoryUsed(), Double.NaN))
        .tags(tags)
        .baseUnit("bytes")
        .description("bytes the cache reserves: pages, index, policy and dictionary")
        .strongReference(false)
        .register(registry);
    // The bounds are read on every sample: a cache whose bound can change (larder-server's
    // keyspace under CONFIG SET maxmemory) reports the current one.
    if (cache.maximumMemory().isPresent()) {
      Gauge.builder(
              "larder.cache.memory.max",
              cache,
              c -> ifOpen(c, x -> bound(x.maximumMemory()), Double.NaN))
          .tags(tags)
          .baseUnit("bytes")
          .description("the cache's byte bound")
          .strongReference(false)
          .register(registry);
    }
    if (cache.maximumEntries().isPresent()) {
      Gauge.builder(
              "larder.cache.entries.max",
              cache,
              c -> ifOpen(c, x -> bound(x.maximumEntries()), Double.NaN))
          .tags(tags)
          .description("the cache's entry bound")
          .strongReference(false)
          .register(registry);
    }
    latency(registry, cache, tags, "get", CacheStats::getLatency);
    latency(registry, cache, tags, "put", CacheStats::putLatency);
    latency(registry, cache, tags, "load", CacheStats::loadLatency);
    if (cache.dictionary().isPresent()) {
      ValueDictionary dictionary = cache.dictionary().get();
      Gauge.builder("larder.cache.dictionary.entries", dictionary, ValueDictionary::size)
          .tags(tags)
          .description("values interned in the cache's value dictionary")
          .register(registry);
      Gauge.builder("larder.cache.dictionary.memory.used", dictionary, ValueDictionary::memoryUsed)
          .tags(tags)
          .baseUnit("bytes")
          .description("bytes the value dictionary uses")
          .register(registry);
    }
  }

  private static void counter(
      MeterRegistry registry,
      String name,
      String description,
      Cache<?, ?> cache,
      ToLongFunction<CacheStats> count,
      Iterable<Tag> tags) {
    FunctionCounter.builder(
            name, cache, c -> ifOpen(c, x -> (double) count.applyAsLong(x.stats()), 0.0))
        .tags(tags)
        .description(description)
        .register(registry);
  }

  private static void latency(
      MeterRegistry registry,
      Cache<?, ?> cache,
      Iterable<Tag> tags,
      String operation,
      java.util.function.Function<CacheStats, LatencySummary> summary) {
    register(registry, cache, tags, operation, "0.5", s -> summary.apply(s).p50Nanos());
    register(registry, cache, tags, operation, "0.99", s -> summary.apply(s).p99Nanos());
  }

  private static void register(
      MeterRegistry registry,
      Cache<?, ?> cache,
      Iterable<Tag> tags,
      String operation,
      String quantile,
      ToLongFunction<CacheStats> nanos) {
    ToDoubleFunction<Cache<?, ?>> read =
        c -> ifOpen(c, x -> (double) nanos.applyAsLong(x.stats()), Double.NaN);
    TimeGauge.builder("larder.cache.latency", cache, TimeUnit.NANOSECONDS, read)
        .tags(Tags.of(tags).and("operation", operation).and("quantile", quantile))
        .description("latency of " + operation + "s since the cache was built")
        .strongReference(false)
        .register(registry);
  }

  private long stat(ToLongFunction<CacheStats> count) {
    Cache<?, ?> cache = getCache();
    if (cache == null) {
      return 0;
    }
    Long value = ifOpen(cache, c -> count.applyAsLong(c.stats()), 0L);
    return value;
  }

  /** A closed cache throws on every call; a scrape that races its close must not fail. */
  private static double bound(java.util.OptionalLong bound) {
    return bound.isPresent() ? bound.getAsLong() : Double.NaN;
  }

  private static <T> T ifOpen(
      Cache<?, ?> cache, java.util.function.Function<Cache<?, ?>, T> read, T closed) {
    try {
      return read.apply(cache);
    } catch (IllegalStateException e) {
      return closed;
    }
  }
}
