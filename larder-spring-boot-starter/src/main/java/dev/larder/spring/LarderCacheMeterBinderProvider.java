package dev.larder.spring;

import dev.larder.metrics.LarderCacheMetrics;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.cache.metrics.CacheMeterBinderProvider;

/**
 * Lets Boot's cache metrics bind Larder caches: {@link LarderCacheMetrics} under Micrometer's
 * cache meter names. Stateless and thread-safe.
 */
public final class LarderCacheMeterBinderProvider
    implements CacheMeterBinderProvider<LarderSpringCache> {

  @Override
  public MeterBinder getMeterBinder(LarderSpringCache cache, Iterable<Tag> tags) {
    return new LarderCacheMetrics(cache.getNativeCache(), cache.getName(), tags);
  }
}
