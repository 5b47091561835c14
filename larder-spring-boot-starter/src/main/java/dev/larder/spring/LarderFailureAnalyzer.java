package dev.larder.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link LarderConfigurationException} as Boot reports its own configuration errors:
 * "APPLICATION FAILED TO START", a description naming the cache, the property and its value, and an
 * action saying what to set. Registered in {@code META-INF/spring.factories}. Stateless.
 */
public final class LarderFailureAnalyzer
    extends AbstractFailureAnalyzer<LarderConfigurationException> {

  /** Makes the analyzer; Boot instantiates it. */
  public LarderFailureAnalyzer() {}

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, LarderConfigurationException cause) {
    return new FailureAnalysis(
        "Larder could not create its caches: "
            + cause.problem()
            + "\n\nProperty: "
            + cause.property(),
        cause.action(),
        cause);
  }
}
