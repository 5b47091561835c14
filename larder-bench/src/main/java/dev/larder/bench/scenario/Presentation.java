package dev.larder.bench.scenario;

import java.util.List;
import java.util.Objects;

/**
 * How a scenario's rows are shown: the columns of the Markdown table and the charts.
 *
 * @param columns table columns, in order; rows lacking a field show an empty cell
 * @param charts charts drawn from the rows; the first is the scenario's main chart
 */
public record Presentation(List<Column> columns, List<ChartSpec> charts) {

  /** Copies the lists and checks for nulls. */
  public Presentation {
    columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
    charts = List.copyOf(Objects.requireNonNull(charts, "charts"));
  }

  /**
   * A table column.
   *
   * @param field the row field shown
   * @param header the column header
   */
  public record Column(String field, String header) {

    /** Checks for nulls. */
    public Column {
      Objects.requireNonNull(field, "field");
      Objects.requireNonNull(header, "header");
    }

    /**
     * Returns the column.
     *
     * @param field a field that is also its own header
     */
    public static Column of(String field) {
      return new Column(field, field);
    }
  }
}
