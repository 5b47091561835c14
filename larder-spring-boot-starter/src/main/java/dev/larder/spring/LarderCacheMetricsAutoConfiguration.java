package dev.larder.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration;
import org.springframework.boot.cache.metrics.CacheMeterBinderProvider;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link LarderCacheMeterBinderProvider} before Boot's cache metrics run, so that
 * Actuator's {@code cache.*} meters cover Larder caches.
 */
@AutoConfiguration(before = CacheMetricsAutoConfiguration.class)
@ConditionalOnClass({MeterRegistry.class, CacheMeterBinderProvider.class})
public class LarderCacheMetricsAutoConfiguration {

  /** @return the provider Boot's cache metrics ask for each Larder cache's binder */
  @Bean
  public LarderCacheMeterBinderProvider larderCacheMeterBinderProvider() {
    return new LarderCacheMeterBinderProvider();
  }
}
