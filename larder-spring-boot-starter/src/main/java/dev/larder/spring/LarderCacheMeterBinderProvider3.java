package dev.larder.spring;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.actuate.metrics.cache.CacheMeterBinderProvider;

/**
 * Lets Boot 3.5's Actuator cache metrics bind Larder caches, as {@link
 * LarderCacheMeterBinderProvider} does for Boot 4. Stateless and thread-safe.
 */
public final class LarderCacheMeterBinderProvider3
    implements CacheMeterBinderProvider<LarderSpringCache> {

  /** Makes the provider. */
  public LarderCacheMeterBinderProvider3() {}

  @Override
  public MeterBinder getMeterBinder(LarderSpringCache cache, Iterable<Tag> tags) {
    return LarderSpringCache.meterBinder(cache, tags);
  }
}
