package dev.larder.spring;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.cache.metrics.CacheMeterBinderProvider;

/**
 * Lets Boot 4's cache metrics bind Larder caches: {@code LarderCacheMetrics} under Micrometer's
 * cache meter names. Stateless and thread-safe.
 */
public final class LarderCacheMeterBinderProvider
    implements CacheMeterBinderProvider<LarderSpringCache> {

  /** Makes the provider. */
  public LarderCacheMeterBinderProvider() {}

  @Override
  public MeterBinder getMeterBinder(LarderSpringCache cache, Iterable<Tag> tags) {
    return LarderSpringCache.meterBinder(cache, tags);
  }
}
