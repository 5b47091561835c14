package dev.larder.bench.scenario;

import java.util.Map;
import java.util.Objects;

/**
 * A grouped bar chart of one numeric field: one group per value of {@code categoryField}, one bar
 * per value of {@code seriesField} in each group. Only measured rows whose fields match every entry
 * of {@code where} are drawn.
 *
 * @param fileSuffix appended to the scenario's name for the file names; empty for the main chart
 * @param title the chart's title
 * @param categoryField the field along the x axis (e.g. {@code "threads"})
 * @param seriesField the field that tells bars apart (e.g. {@code "implementation"})
 * @param valueField the numeric field drawn (e.g. {@code "opsPerSecond"})
 * @param yAxisTitle the y axis title, with its unit
 * @param logarithmic true for a logarithmic y axis
 * @param where field values a row must have to be drawn; empty for all rows
 */
public record ChartSpec(
    String fileSuffix,
    String title,
    String categoryField,
    String seriesField,
    String valueField,
    String yAxisTitle,
    boolean logarithmic,
    Map<String, Object> where) {

  /** Copies the filter and checks for nulls. */
  public ChartSpec {
    Objects.requireNonNull(fileSuffix, "fileSuffix");
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(categoryField, "categoryField");
    Objects.requireNonNull(seriesField, "seriesField");
    Objects.requireNonNull(valueField, "valueField");
    Objects.requireNonNull(yAxisTitle, "yAxisTitle");
    where = Map.copyOf(Objects.requireNonNull(where, "where"));
  }

  /**
   * Returns true if the row is measured and matches {@link #where}.
   *
   * @param row a row
   */
  public boolean selects(Row row) {
    if (!row.measured() || Double.isNaN(row.number(valueField))) {
      return false;
    }
    for (Map.Entry<String, Object> e : where.entrySet()) {
      if (!String.valueOf(e.getValue()).equals(String.valueOf(row.get(e.getKey())))) {
        return false;
      }
    }
    return true;
  }
}
