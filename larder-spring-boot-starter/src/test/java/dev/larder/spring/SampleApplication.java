package dev.larder.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A minimal Boot application using @Cacheable, with a meter registry as Actuator gives. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableCaching
public class SampleApplication {

  /** Returns the service whose results are cached. */
  @Bean
  public BookService bookService() {
    return new BookService();
  }

  /** Returns the registry the cache meters are bound to. */
  @Bean
  public MeterRegistry meterRegistry() {
    return new SimpleMeterRegistry();
  }
}
