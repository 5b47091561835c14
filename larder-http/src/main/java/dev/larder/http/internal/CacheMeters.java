package dev.larder.http.internal;

import dev.larder.http.CacheDirectory;
import dev.larder.http.CacheDirectory.Registration;
import dev.larder.http.CacheFigures;
import dev.larder.http.ServedCache;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Keeps a meter registry's Larder meters in step with a {@link CacheDirectory}: before each scrape,
 * caches new to the directory are bound with {@link ServedCacheMetrics}, and the meters of caches
 * removed (or replaced under the same name) are removed.
 *
 * <p>Implementation notes: the meters a binding added are found as the registry's meters after the
 * binding minus those before it, so only meters this class registered are ever removed, never an
 * application's own meters that happen to carry the same {@code cache} tag. Closed caches stay
 * bound until removed from the directory; their gauges read NaN, as the binder documents. Within
 * one scrape of the endpoint ({@link #scrape}) each cache's figures are read once, at its first
 * sample, and its other meters sample the same figures: the meters of a cache read together, and a
 * cache whose figures are costly (a clustered cache counts its entries on every member) is asked
 * once per scrape rather than once per meter. A scrape of the registry from elsewhere reads the
 * figures afresh for every sample. Thread-safe: {@link #sync} is synchronized (scrapes are rare;
 * the cost is a set difference per newly bound cache), and a scrape's figures are kept per thread.
 */
final class CacheMeters {

  private final MeterRegistry registry;
  private final CacheDirectory directory;
  private final Map<String, Bound> bound = new HashMap<>();

  /** The figures read so far by the scrape running on this thread, or null outside one. */
  // Per instance on purpose: each registry's meters keep their own scrape's figures.
  @SuppressWarnings("ThreadLocalUsage")
  private final ThreadLocal<Map<ServedCache<?, ?>, CacheFigures>> scraped = new ThreadLocal<>();

  private record Bound(ServedCache<?, ?> cache, Set<Meter.Id> ids) {}

  CacheMeters(MeterRegistry registry, CacheDirectory directory) {
    this.registry = registry;
    this.directory = directory;
  }

  /** Binds caches new to the directory and unbinds those gone from it. */
  @SuppressWarnings("ReferenceEquality") // a cache registered again is another instance
  synchronized void sync() {
    List<Registration<?, ?>> current = directory.list();
    Set<String> names = new HashSet<>();
    for (Registration<?, ?> r : current) {
      names.add(r.name());
      Bound b = bound.get(r.name());
      if (b != null && b.cache() != r.cache()) {
        unbind(r.name());
        b = null;
      }
      if (b == null) {
        bind(r);
      }
    }
    for (String name : Set.copyOf(bound.keySet())) {
      if (!names.contains(name)) {
        unbind(name);
      }
    }
  }

  /** Binds a cache's meters; a cache closed before its first scrape is left unbound. */
  private void bind(Registration<?, ?> r) {
    ServedCacheMetrics metrics;
    try {
      metrics = new ServedCacheMetrics(r.cache(), r.name(), Tags.empty(), this::figures);
    } catch (IllegalStateException closed) {
      return;
    }
    Set<Meter.Id> before = ids();
    metrics.bindTo(registry);
    Set<Meter.Id> added = ids();
    added.removeAll(before);
    bound.put(r.name(), new Bound(r.cache(), added));
  }

  /**
   * Runs a scrape of the registry on this thread, reading each cache's figures once.
   *
   * @param body the scrape
   * @param <T> what it returns
   * @return what it returned
   */
  <T> T scrape(Supplier<T> body) {
    scraped.set(new IdentityHashMap<>());
    try {
      return body.get();
    } finally {
      scraped.remove();
    }
  }

  /**
   * A cache's figures for a meter's sample: those read earlier in the same scrape, if any.
   *
   * @throws IllegalStateException if the cache is closed
   */
  private CacheFigures figures(ServedCache<?, ?> cache) {
    Map<ServedCache<?, ?>, CacheFigures> read = scraped.get();
    if (read == null) {
      return cache.figures();
    }
    CacheFigures figures = read.get(cache);
    if (figures == null) {
      figures = cache.figures();
      read.put(cache, figures);
    }
    return figures;
  }

  private void unbind(String name) {
    Bound b = bound.remove(name);
    for (Meter.Id id : b.ids()) {
      registry.remove(id);
    }
  }

  private Set<Meter.Id> ids() {
    Set<Meter.Id> ids = new HashSet<>();
    for (Meter m : registry.getMeters()) {
      ids.add(m.getId());
    }
    return ids;
  }
}
