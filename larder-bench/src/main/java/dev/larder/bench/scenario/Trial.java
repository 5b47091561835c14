package dev.larder.bench.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One unit of work that runs in its own JVM: an implementation at one configuration.
 *
 * @param implementation the implementation measured, e.g. {@code "Caffeine"}
 * @param label a short description of the configuration shown in progress lines, e.g. {@code "512
 *     B"}; may be empty
 * @param params the configuration as strings (they travel to the forked JVM as JSON)
 */
public record Trial(String implementation, String label, Map<String, String> params) {

  /** Copies the parameters and checks for nulls. */
  public Trial {
    Objects.requireNonNull(implementation, "implementation");
    Objects.requireNonNull(label, "label");
    params = Map.copyOf(Objects.requireNonNull(params, "params"));
  }

  /**
   * Returns a trial with no parameters and no label.
   *
   * @param implementation the implementation
   */
  public static Trial of(String implementation) {
    return new Trial(implementation, "", Map.of());
  }

  /**
   * Returns one trial with no parameters for each implementation the run includes.
   *
   * @param implementations the implementations a scenario measures, in its order
   * @param options the run's options, whose {@code --only} filter applies
   */
  public static List<Trial> eachIncluded(List<String> implementations, RunOptions options) {
    return implementations.stream().filter(options::includes).map(Trial::of).toList();
  }

  /** Parameter naming, comma-separated, the implementations of a trial that measures several. */
  public static final String IMPLEMENTATIONS = "implementations";

  /**
   * Returns the implementations this trial measures: those its {@value #IMPLEMENTATIONS} parameter
   * lists, for a trial that runs several in one JVM, else its implementation.
   */
  public List<String> implementations() {
    String several = params.get(IMPLEMENTATIONS);
    return several == null ? List.of(implementation) : List.of(several.split(","));
  }

  /**
   * Returns its value.
   *
   * @param name a parameter name
   * @throws IllegalArgumentException if absent
   */
  public String param(String name) {
    String value = params.get(name);
    if (value == null) {
      throw new IllegalArgumentException("trial " + implementation + " has no parameter " + name);
    }
    return value;
  }

  /**
   * Returns its value as a long.
   *
   * @param name a parameter name
   */
  public long longParam(String name) {
    return Long.parseLong(param(name));
  }

  /** Returns the fields of this trial as a JSON-ready map. */
  public Map<String, Object> toJson() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("implementation", implementation);
    map.put("label", label);
    map.put("params", new LinkedHashMap<>(params));
    return map;
  }

  /**
   * Returns the trial.
   *
   * @param json a map written by {@link #toJson}
   */
  public static Trial fromJson(Map<String, Object> json) {
    Map<String, String> params = new LinkedHashMap<>();
    if (json.get("params") instanceof Map<?, ?> p) {
      p.forEach((k, v) -> params.put(String.valueOf(k), String.valueOf(v)));
    }
    return new Trial(
        String.valueOf(json.get("implementation")), String.valueOf(json.get("label")), params);
  }
}
