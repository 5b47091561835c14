package dev.larder.http.internal;

import dev.larder.Cache;
import dev.larder.http.CacheDirectory;
import dev.larder.http.CacheDirectory.Registration;
import dev.larder.metrics.LarderCacheMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keeps a meter registry's Larder meters in step with a {@link CacheDirectory}: before each
 * scrape, caches new to the directory are bound with {@link LarderCacheMetrics}, and the meters
 * of caches removed (or replaced under the same name) are removed.
 *
 * <p>Implementation notes: the meters a binding added are found as the registry's meters after
 * the binding minus those before it, so only meters this class registered are ever removed,
 * never an application's own meters that happen to carry the same {@code cache} tag. Closed
 * caches stay bound until removed from the directory; their gauges read NaN, as the binder
 * documents. Thread-safe: {@link #sync} is synchronized (scrapes are rare; the cost is a set
 * difference per newly bound cache).
 */
final class CacheMeters {

  private final MeterRegistry registry;
  private final CacheDirectory directory;
  private final Map<String, Bound> bound = new HashMap<>();

  private record Bound(Cache<?, ?> cache, Set<Meter.Id> ids) {}

  CacheMeters(MeterRegistry registry, CacheDirectory directory) {
    this.registry = registry;
    this.directory = directory;
  }

  /** Binds caches new to the directory and unbinds those gone from it. */
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

  private void bind(Registration<?, ?> r) {
    Set<Meter.Id> before = ids();
    new LarderCacheMetrics(r.cache(), r.name(), Tags.empty()).bindTo(registry);
    Set<Meter.Id> added = ids();
    added.removeAll(before);
    bound.put(r.name(), new Bound(r.cache(), added));
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
