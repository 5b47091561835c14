package dev.larder.bench.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Options of one {@code ./larder bench} run, shared by every scenario and trial.
 *
 * @param quick true for {@code --quick}: every scenario scaled down so that all of them finish in a
 *     few minutes
 * @param params scenario parameters from {@code -P name=value}, e.g. {@code nodes=200000}
 * @param implementations implementations to run (case-insensitive); empty means all
 */
public record RunOptions(boolean quick, Map<String, String> params, Set<String> implementations) {

  /** Copies the collections and checks for nulls. */
  public RunOptions {
    params = Map.copyOf(Objects.requireNonNull(params, "params"));
    implementations = Set.copyOf(Objects.requireNonNull(implementations, "implementations"));
  }

  /** Returns default options: full size, no parameters, every implementation. */
  public static RunOptions defaults() {
    return new RunOptions(false, Map.of(), Set.of());
  }

  /**
   * Returns true if it should run.
   *
   * @param implementation an implementation's name
   */
  public boolean includes(String implementation) {
    if (implementations.isEmpty()) {
      return true;
    }
    for (String wanted : implementations) {
      if (wanted.equalsIgnoreCase(implementation)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns the comma-separated {@code -P} value if given, else the default for this kind of run.
   *
   * @param name a parameter name
   * @param full the default of a full run
   * @param quickDefault the default of a quick run
   */
  public List<String> listParam(String name, List<String> full, List<String> quickDefault) {
    String value = params.get(name);
    if (value == null) {
      return quick ? quickDefault : full;
    }
    return List.of(value.split("\\s*,\\s*"));
  }

  /** Returns the options as a JSON-ready map. */
  public Map<String, Object> toJson() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("quick", quick);
    map.put("params", new LinkedHashMap<String, Object>(params));
    map.put("implementations", List.copyOf(implementations));
    return map;
  }

  /**
   * Returns the options.
   *
   * @param json a map written by {@link #toJson}
   */
  public static RunOptions fromJson(Map<String, Object> json) {
    Map<String, String> params = new LinkedHashMap<>();
    if (json.get("params") instanceof Map<?, ?> p) {
      p.forEach((k, v) -> params.put(String.valueOf(k), String.valueOf(v)));
    }
    Set<String> impls = new java.util.LinkedHashSet<>();
    if (json.get("implementations") instanceof List<?> list) {
      list.forEach(v -> impls.add(String.valueOf(v)));
    }
    return new RunOptions(Boolean.TRUE.equals(json.get("quick")), params, impls);
  }
}
