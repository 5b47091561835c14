package dev.larder.spring;

import java.util.List;
import java.util.function.UnaryOperator;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cache.CacheManager;
import org.springframework.cache.support.NoOpCacheManager;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ObjectUtils;

/**
 * Makes Larder the application's {@link CacheManager} when the starter is on the class path, unless
 * the application defines a cache manager of its own, sets {@code larder.enabled=false}, or chooses
 * a cache type with {@code spring.cache.type} (Boot's cache auto-configuration then makes that one;
 * {@code none} gives a {@link NoOpCacheManager} even where Boot's cache module is absent). Runs
 * before Boot's cache auto-configuration, which then steps aside, and so before Boot's cache
 * metrics, which bind every declared cache's meters at start-up.
 *
 * <p>Works with Boot 4 and Boot 3.5: the classes of Boot's cache module it refers to are named as
 * strings, and its customizers are applied through {@link BootCacheCustomizers}.
 */
@AutoConfiguration(
    beforeName = {
      "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration",
      "org.springframework.boot.autoconfigure.cache.CacheAutoConfiguration"
    })
@ConditionalOnClass({CacheManager.class, dev.larder.Cache.class})
@ConditionalOnMissingBean(CacheManager.class)
public class LarderCacheAutoConfiguration {

  /** Makes the configuration; Boot instantiates it. */
  public LarderCacheAutoConfiguration() {}

  /** Larder's manager, when neither {@code larder.enabled=false} nor a cache type says no. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(name = "larder.enabled", havingValue = "true", matchIfMissing = true)
  @Conditional(NoSpringCacheTypeCondition.class)
  @EnableConfigurationProperties(LarderCacheProperties.class)
  static class LarderManagerConfiguration {

    /**
     * Returns the cache manager, with every declared cache created.
     *
     * @param properties the {@code larder.*} properties
     * @param environment gives {@code spring.cache.cache-names} and {@code spring.jmx.*}
     * @param context the application context, whose cache manager customizers are applied and whose
     *     identity makes JMX names unique when {@code spring.jmx.unique-names} asks
     */
    @Bean
    LarderCacheManager cacheManager(
        LarderCacheProperties properties, Environment environment, ApplicationContext context) {
      Binder binder = Binder.get(environment);
      List<String> names =
          binder.bind("spring.cache.cache-names", Bindable.listOf(String.class)).orElse(List.of());
      LarderCacheManager manager =
          new LarderCacheManager(
              properties,
              LarderCacheAutoConfiguration.class.getClassLoader(),
              names,
              managementNames(binder, context));
      BootCacheCustomizers.apply((ListableBeanFactory) context, manager);
      return manager;
    }

    /** JMX names as Boot's own MBeans get them: only with spring.jmx.enabled. */
    private static UnaryOperator<String> managementNames(Binder binder, Object context) {
      boolean enabled = binder.bind("spring.jmx.enabled", Boolean.class).orElse(false);
      if (!enabled) {
        return null;
      }
      boolean unique = binder.bind("spring.jmx.unique-names", Boolean.class).orElse(false);
      String suffix = "@" + ObjectUtils.getIdentityHexString(context);
      return unique ? name -> name + suffix : name -> name;
    }
  }

  /** Boot's {@code spring.cache.type=none}, even where Boot's cache module is absent. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(name = "spring.cache.type", havingValue = "none")
  static class NoCachingConfiguration {

    /** Returns a manager whose caches store nothing, as {@code spring.cache.type=none} asks. */
    @Bean
    NoOpCacheManager cacheManager() {
      return new NoOpCacheManager();
    }
  }
}
