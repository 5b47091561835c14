package dev.larder.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Set;
import java.util.UUID;

/**
 * The JDK's value classes whose instances nothing can change, so that a caller's own instance may
 * be kept and handed to other readers (the hot tier, on a write): final classes, or exactly
 * BigInteger and BigDecimal (whose subclasses could add state), and enum constants.
 */
final class SharedInstances {

  private static final Set<Class<?>> IMMUTABLE =
      Set.of(
          String.class,
          Integer.class,
          Long.class,
          Short.class,
          Byte.class,
          Character.class,
          Boolean.class,
          Float.class,
          Double.class,
          UUID.class,
          BigInteger.class,
          BigDecimal.class,
          java.util.Locale.class,
          java.time.Instant.class,
          java.time.LocalDate.class,
          java.time.LocalDateTime.class,
          java.time.LocalTime.class,
          java.time.Duration.class);

  private SharedInstances() {}

  /** Returns whether {@code value}'s exact class is one of the JDK's immutable value classes. */
  static boolean isImmutable(Object value) {
    Class<?> type = value.getClass();
    return type == String.class || IMMUTABLE.contains(type) || value instanceof Enum<?>;
  }
}
