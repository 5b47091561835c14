package dev.larder.spring;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.cache.CacheManager;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * Applies the application's {@code CacheManagerCustomizer} beans to Larder's manager, as Boot's
 * cache auto-configuration applies them to its own (which steps aside for Larder's, and with it
 * Boot's {@code CacheManagerCustomizers}). The interface is Boot 4's ({@code
 * org.springframework.boot.cache.autoconfigure}) or Boot 3.5's ({@code
 * org.springframework.boot.autoconfigure.cache}), so it is found by name. A customizer whose type
 * argument is another manager type is skipped, as Boot skips it. Stateless.
 */
final class BootCacheCustomizers {

  private static final List<String> INTERFACES =
      List.of(
          "org.springframework.boot.cache.autoconfigure.CacheManagerCustomizer",
          "org.springframework.boot.autoconfigure.cache.CacheManagerCustomizer");

  private BootCacheCustomizers() {}

  static void apply(ListableBeanFactory beans, LarderCacheManager manager) {
    ClassLoader loader = BootCacheCustomizers.class.getClassLoader();
    for (String name : INTERFACES) {
      if (ClassUtils.isPresent(name, loader)) {
        apply(beans, manager, ClassUtils.resolveClassName(name, loader));
      }
    }
  }

  private static void apply(ListableBeanFactory beans, LarderCacheManager manager, Class<?> type) {
    Method customize;
    try {
      customize = type.getMethod("customize", CacheManager.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(type.getName() + " has no customize(CacheManager)", e);
    }
    beans
        .getBeanProvider(type)
        .orderedStream()
        .filter(customizer -> accepts(type, customizer))
        .forEach(customizer -> invoke(customize, customizer, manager));
  }

  private static boolean accepts(Class<?> type, Object customizer) {
    Class<?> target = ResolvableType.forClass(customizer.getClass()).as(type).resolveGeneric(0);
    return target == null || target.isAssignableFrom(LarderCacheManager.class);
  }

  private static void invoke(Method customize, Object customizer, LarderCacheManager manager) {
    try {
      customize.invoke(customizer, manager);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot call " + customizer, e);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof ClassCastException) {
        return; // a lambda for another manager type, whose type argument could not be read
      }
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(customizer + " failed", e.getCause());
    }
  }
}
