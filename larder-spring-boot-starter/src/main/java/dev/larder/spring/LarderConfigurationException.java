package dev.larder.spring;

import java.util.Objects;

/**
 * A {@code larder.*} (or {@code spring.cache.*}) setting that cannot make a cache, thrown while the
 * application starts. It names the property, says what is wrong with it and how to fix it; {@link
 * LarderFailureAnalyzer} turns it into Boot's "APPLICATION FAILED TO START" report, with the
 * problem as the description and the fix as the action. Immutable.
 */
public final class LarderConfigurationException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final String property;
  private final String problem;
  private final String action;

  /**
   * @param property the property to change, e.g. {@code larder.caches.books.maximum-entries}
   * @param problem what is wrong, in a sentence naming the cache and the value
   * @param action what to set instead, phrased for an {@code application.properties} user
   * @param cause the error that revealed it, or null
   */
  public LarderConfigurationException(
      String property, String problem, String action, Throwable cause) {
    super(
        Objects.requireNonNull(problem, "problem")
            + " Fix: "
            + Objects.requireNonNull(action, "action"),
        cause);
    this.property = Objects.requireNonNull(property, "property");
    this.problem = problem;
    this.action = action;
  }

  /** Returns the property to change. */
  public String property() {
    return property;
  }

  /** Returns what is wrong. */
  public String problem() {
    return problem;
  }

  /** Returns how to fix it. */
  public String action() {
    return action;
  }
}
