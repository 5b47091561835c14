package dev.larder.bench.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The registry of scenarios: every {@link Scenario} listed in {@code
 * META-INF/services/dev.larder.bench.scenario.Scenario}, in that file's order.
 */
public final class Scenarios {

  private Scenarios() {}

  /** Returns fresh instances of every registered scenario, in registration order. */
  public static List<Scenario> all() {
    List<Scenario> list = new ArrayList<>();
    ServiceLoader.load(Scenario.class).forEach(list::add);
    return list;
  }

  /**
   * Returns a fresh instance of that scenario, if registered.
   *
   * @param name a scenario name, case-insensitive
   */
  public static Optional<Scenario> named(String name) {
    return all().stream().filter(s -> s.name().equalsIgnoreCase(name)).findFirst();
  }

  /** Returns the registered names, in order. */
  public static List<String> names() {
    return all().stream().map(Scenario::name).toList();
  }
}
