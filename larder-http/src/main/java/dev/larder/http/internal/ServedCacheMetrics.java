package dev.larder.http.internal;

import dev.larder.LatencySummary;
import dev.larder.http.CacheFigures;
import dev.larder.http.ServedCache;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds a {@link ServedCache}'s figures to a Micrometer registry under the meter names, tags and
 * descriptions of larder-metrics' {@code LarderCacheMetrics} (Micrometer's {@code cache.*} plus
 * {@code larder.cache.*}), so a Larder cache scrapes the same through {@code /metrics} as bound by
 * that binder ({@code ServedCacheMetricsTest} compares the two scrapes).
 *
 * <p>Implementation notes. A figure the cache does not measure at bind time gets no meter at all,
 * rather than one that reads 0: Micrometer's {@link CacheMeterBinder} leaves out {@code
 * cache.gets}, {@code cache.puts} and {@code cache.evictions} when their count is -1 or null, and
 * this class does the same for its own meters. Every sample reads the figures through the reader it
 * is given (the endpoint's reads them once per scrape), never figures kept from an earlier scrape,
 * so a bound that changes (larder-server's keyspace under {@code CONFIG SET maxmemory}) is reported
 * as it is now. Once the cache is closed its gauges read NaN and its counters 0. The cache is held
 * weakly, as Micrometer's binders hold theirs. Thread-safe.
 */
final class ServedCacheMetrics extends CacheMeterBinder<ServedCache<?, ?>> {

  private static final System.Logger LOG = System.getLogger(ServedCacheMetrics.class.getName());

  /** Reads a cache's figures for a sample (within a scrape, once: {@link CacheMeters}). */
  private final Function<ServedCache<?, ?>, CacheFigures> reader;

  /** What the figures had measured when the meters were bound. */
  private final CacheFigures atBind;

  /**
   * @param cache the cache to report
   * @param cacheName the value of the {@code cache} tag
   * @param tags further tags for every meter
   * @param reader reads the cache's figures for a sample (at its simplest {@link
   *     ServedCache#figures()}); throws {@link IllegalStateException} once it is closed
   * @throws IllegalStateException if the cache is closed
   */
  ServedCacheMetrics(
      ServedCache<?, ?> cache,
      String cacheName,
      Iterable<Tag> tags,
      Function<ServedCache<?, ?>, CacheFigures> reader) {
    super(cache, cacheName, tags);
    this.reader = reader;
    this.atBind = reader.apply(cache);
    if (!atBind.statistics()) {
      LOG.log(
          System.Logger.Level.WARNING,
          "Larder cache {0} does not record statistics: its"
              + " cache.gets, cache.puts, cache.evictions and cache.load meters will stay at 0"
              + " (build it with recordStats())",
          cacheName);
    }
  }

  @Override
  protected Long size() {
    ServedCache<?, ?> cache = getCache();
    return cache == null ? null : ifOpen(cache, f -> f.entries(), null);
  }

  @Override
  protected long hitCount() {
    return count(CacheFigures::hits);
  }

  @Override
  protected Long missCount() {
    return count(CacheFigures::misses);
  }

  @Override
  protected Long evictionCount() {
    return count(CacheFigures::evictions);
  }

  /** Returns the put count, or -1 (no meter) if the cache does not measure puts. */
  @Override
  protected long putCount() {
    return atBind.puts().isEmpty() ? -1 : count(f -> f.puts().orElse(0));
  }

  @Override
  protected void bindImplementationSpecificMetrics(MeterRegistry registry) {
    ServedCache<?, ?> cache = getCache();
    if (cache == null) {
      return;
    }
    Iterable<Tag> tags = getTagsWithCacheName();
    counter(
        registry,
        "cache.load",
        "loads that returned a value",
        cache,
        CacheFigures::loadSuccesses,
        Tags.of(tags).and("result", "success"));
    counter(
        registry,
        "cache.load",
        "loads that threw or returned null",
        cache,
        CacheFigures::loadFailures,
        Tags.of(tags).and("result", "failure"));
    counter(
        registry,
        "larder.cache.removals",
        "entries removed explicitly",
        cache,
        CacheFigures::removals,
        Tags.of(tags).and("cause", "explicit"));
    counter(
        registry,
        "larder.cache.removals",
        "entries removed because they expired",
        cache,
        f -> OptionalLong.of(f.expirations()),
        Tags.of(tags).and("cause", "expired"));

    Gauge.builder(
            "larder.cache.memory.used",
            cache,
            c -> ifOpen(c, f -> (double) f.memoryUsed(), Double.NaN))
        .tags(tags)
        .baseUnit("bytes")
        .description("bytes the cache reserves: pages, index, policy and dictionary")
        .strongReference(false)
        .register(registry);
    if (atBind.maximumMemory().isPresent()) {
      Gauge.builder(
              "larder.cache.memory.max",
              cache,
              c -> ifOpen(c, f -> bound(f.maximumMemory()), Double.NaN))
          .tags(tags)
          .baseUnit("bytes")
          .description("the cache's byte bound")
          .strongReference(false)
          .register(registry);
    }
    if (atBind.maximumEntries().isPresent()) {
      Gauge.builder(
              "larder.cache.entries.max",
              cache,
              c -> ifOpen(c, f -> bound(f.maximumEntries()), Double.NaN))
          .tags(tags)
          .description("the cache's entry bound")
          .strongReference(false)
          .register(registry);
    }
    latency(registry, cache, tags, "get", CacheFigures::getLatency);
    latency(registry, cache, tags, "put", CacheFigures::putLatency);
    latency(registry, cache, tags, "load", CacheFigures::loadLatency);
    if (atBind.dictionary().isPresent()) {
      Gauge.builder(
              "larder.cache.dictionary.entries",
              cache,
              c -> ifOpen(c, f -> dictionary(f, CacheFigures.Dictionary::entries), Double.NaN))
          .tags(tags)
          .description("values interned in the cache's value dictionary")
          .strongReference(false)
          .register(registry);
      Gauge.builder(
              "larder.cache.dictionary.memory.used",
              cache,
              c -> ifOpen(c, f -> dictionary(f, CacheFigures.Dictionary::memoryUsed), Double.NaN))
          .tags(tags)
          .baseUnit("bytes")
          .description("bytes the value dictionary uses")
          .strongReference(false)
          .register(registry);
    }
  }

  /** Registers a counter if the cache measured its count when bound. */
  private void counter(
      MeterRegistry registry,
      String name,
      String description,
      ServedCache<?, ?> cache,
      Function<CacheFigures, OptionalLong> count,
      Iterable<Tag> tags) {
    if (count.apply(atBind).isEmpty()) {
      return;
    }
    FunctionCounter.builder(
            name, cache, c -> ifOpen(c, f -> (double) count.apply(f).orElse(0), 0.0))
        .tags(tags)
        .description(description)
        .register(registry);
  }

  /** Registers the p50 and p99 gauges of an operation the cache timed when bound. */
  private void latency(
      MeterRegistry registry,
      ServedCache<?, ?> cache,
      Iterable<Tag> tags,
      String operation,
      Function<CacheFigures, Optional<LatencySummary>> summary) {
    if (summary.apply(atBind).isEmpty()) {
      return;
    }
    register(
        registry,
        cache,
        tags,
        operation,
        "0.5",
        f -> summary.apply(f).map(LatencySummary::p50Nanos));
    register(
        registry,
        cache,
        tags,
        operation,
        "0.99",
        f -> summary.apply(f).map(LatencySummary::p99Nanos));
  }

  private void register(
      MeterRegistry registry,
      ServedCache<?, ?> cache,
      Iterable<Tag> tags,
      String operation,
      String quantile,
      Function<CacheFigures, Optional<Long>> nanos) {
    ToDoubleFunction<ServedCache<?, ?>> read =
        c -> ifOpen(c, f -> nanos.apply(f).map(Long::doubleValue).orElse(Double.NaN), Double.NaN);
    TimeGauge.builder("larder.cache.latency", cache, TimeUnit.NANOSECONDS, read)
        .tags(Tags.of(tags).and("operation", operation).and("quantile", quantile))
        .description("latency of " + operation + "s since the cache was built")
        .strongReference(false)
        .register(registry);
  }

  /** A count now: 0 once the cache is closed or collected. */
  private long count(ToLongFunction<CacheFigures> count) {
    ServedCache<?, ?> cache = getCache();
    if (cache == null) {
      return 0;
    }
    return ifOpen(cache, f -> count.applyAsLong(f), 0L);
  }

  private static double bound(OptionalLong bound) {
    return bound.isPresent() ? bound.getAsLong() : Double.NaN;
  }

  private static double dictionary(CacheFigures f, ToLongFunction<CacheFigures.Dictionary> figure) {
    return f.dictionary().map(d -> (double) figure.applyAsLong(d)).orElse(Double.NaN);
  }

  /** A closed cache throws on every call; a scrape that races its close must not fail. */
  private <T> T ifOpen(ServedCache<?, ?> cache, Function<CacheFigures, T> read, T closed) {
    try {
      return read.apply(reader.apply(cache));
    } catch (IllegalStateException e) {
      return closed;
    }
  }
}
