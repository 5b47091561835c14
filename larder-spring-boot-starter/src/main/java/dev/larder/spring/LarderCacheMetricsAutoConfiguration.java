package dev.larder.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link LarderCacheMeterBinderProvider} before Boot 4's cache metrics run, so that
 * Actuator's {@code cache.*} meters cover Larder caches. Boot 3.5 has its own: {@link
 * LarderCacheMetricsAutoConfiguration3}.
 */
@AutoConfiguration(
    beforeName =
        "org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration")
@ConditionalOnClass(
    name = {
      "io.micrometer.core.instrument.MeterRegistry",
      "org.springframework.boot.cache.metrics.CacheMeterBinderProvider"
    })
public class LarderCacheMetricsAutoConfiguration {

  /** Makes the configuration; Boot instantiates it. */
  public LarderCacheMetricsAutoConfiguration() {}

  /** Returns the provider Boot's cache metrics ask for each Larder cache's binder. */
  @Bean
  public LarderCacheMeterBinderProvider larderCacheMeterBinderProvider() {
    return new LarderCacheMeterBinderProvider();
  }
}
