package dev.larder.bench.scenario;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One measurement: an ordered set of named fields. Every row has an {@code implementation}. Numeric
 * fields carry their unit in their name ({@code opsPerSecond}, {@code p50Micros}, {@code
 * totalBytesPerEntry}). A row for something that did not run has a {@code status} of {@code
 * "unavailable"} or {@code "failed"} and a {@code reason}.
 *
 * <p>Values are null, {@link Boolean}, {@link Number} or {@link String}. Not thread-safe.
 */
public final class Row {

  /** Field holding the implementation's name. */
  public static final String IMPLEMENTATION = "implementation";

  /** Field present on rows that did not measure: {@code "unavailable"} or {@code "failed"}. */
  public static final String STATUS = "status";

  /** Field explaining a {@link #STATUS}. */
  public static final String REASON = "reason";

  private final Map<String, Object> fields = new LinkedHashMap<>();

  private Row(String implementation) {
    fields.put(IMPLEMENTATION, Objects.requireNonNull(implementation, "implementation"));
  }

  /**
   * Returns a row with only its implementation set.
   *
   * @param implementation the implementation measured
   */
  public static Row of(String implementation) {
    return new Row(implementation);
  }

  /**
   * Returns a row saying so.
   *
   * @param implementation the implementation
   * @param reason why it cannot run here, e.g. a missing feature or an error on this JVM
   */
  public static Row unavailable(String implementation, String reason) {
    return of(implementation).put(STATUS, "unavailable").put(REASON, reason);
  }

  /**
   * Returns a row saying the trial failed.
   *
   * @param implementation the implementation
   * @param reason what went wrong
   */
  public static Row failed(String implementation, String reason) {
    return of(implementation).put(STATUS, "failed").put(REASON, reason);
  }

  /**
   * Returns the row.
   *
   * @param fields a map as produced by {@link #fields()}, e.g. parsed from JSON
   * @throws IllegalArgumentException if there is no implementation field
   */
  public static Row fromMap(Map<String, Object> fields) {
    Object implementation = fields.get(IMPLEMENTATION);
    if (!(implementation instanceof String name)) {
      throw new IllegalArgumentException("a row needs a string implementation field: " + fields);
    }
    Row row = new Row(name);
    fields.forEach(row::put);
    return row;
  }

  /**
   * Sets a field, replacing any earlier value; the field keeps its first position.
   *
   * @param name the field name
   * @param value null, a boolean, a number or a string
   * @return this row
   * @throws IllegalArgumentException for any other type
   */
  public Row put(String name, Object value) {
    Objects.requireNonNull(name, "name");
    if (value != null
        && !(value instanceof Boolean || value instanceof Number || value instanceof String)) {
      throw new IllegalArgumentException(name + ": rows hold only booleans, numbers and strings");
    }
    fields.put(name, value);
    return this;
  }

  /**
   * Returns its value, or null.
   *
   * @param name a field name
   */
  public Object get(String name) {
    return fields.get(name);
  }

  /**
   * Returns its value as a double, or NaN if absent or not a number.
   *
   * @param name a field name
   */
  public double number(String name) {
    return fields.get(name) instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  /** Returns the implementation's name. */
  public String implementation() {
    return (String) fields.get(IMPLEMENTATION);
  }

  /** Returns true unless this row is unavailable or failed. */
  public boolean measured() {
    return !fields.containsKey(STATUS);
  }

  /** Returns whether this row records a trial that failed (not one that was unavailable). */
  public boolean failed() {
    return "failed".equals(fields.get(STATUS));
  }

  /** Returns the fields, in insertion order; unmodifiable. */
  public Map<String, Object> fields() {
    return Collections.unmodifiableMap(fields);
  }

  @Override
  public String toString() {
    return fields.toString();
  }
}
