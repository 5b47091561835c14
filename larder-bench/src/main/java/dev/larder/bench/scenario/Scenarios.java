package dev.larder.bench.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The registry of scenarios: every {@link Scenario} listed in
 * {@code META-INF/services/dev.larder.bench.scenario.Scenario}, in that file's order.
 */
public final class Scenarios {

  private Scenarios() {}

  /** @return fresh instances of every registered scenario, in registration order */
  public static List<Scenario> all() {
    List<Scenario> list = new ArrayList<>();
    ServiceLoader.load(Scenario.class).forEach(list::add);
    return list;
  }

  /**
   * @param name a scenario name, case-insensitive
   * @return a fresh instance of that scenario, if registered
   */
  public static Optional<Scenario> named(String name) {
    return all().stream().filter(s -> s.name().equalsIgnoreCase(name)).findFirst();
  }

  /** @return the registered names, in order */
  public static List<String> names() {
    return all().stream().map(Scenario::name).toList();
  }
}
