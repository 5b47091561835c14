package dev.larder.spring;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code spring.cache.type} is not set: a type there is the application choosing
 * Boot's cache of that type ({@code none}, {@code simple}, {@code caffeine}, {@code jcache}, ...),
 * and Larder steps aside. Stateless.
 */
final class NoSpringCacheTypeCondition extends SpringBootCondition {

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    String type = context.getEnvironment().getProperty("spring.cache.type");
    return type == null || type.isBlank()
        ? ConditionOutcome.match("spring.cache.type is not set")
        : ConditionOutcome.noMatch("spring.cache.type=" + type + " chooses Boot's cache");
  }
}
