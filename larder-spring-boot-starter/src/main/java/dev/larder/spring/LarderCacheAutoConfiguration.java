package dev.larder.spring;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.CacheManagerCustomizers;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cache.CacheManager;
import org.springframework.context.annotation.Bean;

/**
 * Makes Larder the application's {@link CacheManager} when the starter is on the class path
 * and the application defines no cache manager of its own ({@code larder.enabled=false} turns
 * it off). Runs before Boot's own cache auto-configuration, which then steps aside, and so
 * before Boot's cache metrics, which bind every declared cache's meters at start-up.
 */
@AutoConfiguration(before = CacheAutoConfiguration.class)
@ConditionalOnClass({CacheManager.class, dev.larder.Cache.class})
@ConditionalOnMissingBean(CacheManager.class)
@ConditionalOnProperty(name = "larder.enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(LarderCacheProperties.class)
public class LarderCacheAutoConfiguration {

  /**
   * @param properties the {@code larder.*} properties
   * @param customizers Boot's cache manager customizers, applied as Boot applies them
   * @return the cache manager, with every declared cache created
   */
  @Bean
  public LarderCacheManager cacheManager(LarderCacheProperties properties,
      ObjectProvider<CacheManagerCustomizers> customizers) {
    LarderCacheManager manager = new LarderCacheManager(properties,
        LarderCacheAutoConfiguration.class.getClassLoader());
    customizers.ifAvailable(c -> c.customize(manager));
    return manager;
  }
}
