package dev.larder.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Boot 3.5's counterpart of {@link LarderCacheMetricsAutoConfiguration}: registers {@link
 * LarderCacheMeterBinderProvider3} before Actuator's cache metrics run.
 */
@AutoConfiguration(
    beforeName =
        "org.springframework.boot.actuate.autoconfigure.metrics.cache.CacheMetricsAutoConfiguration")
@ConditionalOnClass(
    name = {
      "io.micrometer.core.instrument.MeterRegistry",
      "org.springframework.boot.actuate.metrics.cache.CacheMeterBinderProvider"
    })
public class LarderCacheMetricsAutoConfiguration3 {

  /** Makes the configuration; Boot instantiates it. */
  public LarderCacheMetricsAutoConfiguration3() {}

  /** Returns the provider Actuator's cache metrics ask for each Larder cache's binder. */
  @Bean
  public LarderCacheMeterBinderProvider3 larderCacheMeterBinderProvider3() {
    return new LarderCacheMeterBinderProvider3();
  }
}
