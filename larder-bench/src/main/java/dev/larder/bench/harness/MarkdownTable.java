package dev.larder.bench.harness;

import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders a scenario's rows as a GitHub-flavoured Markdown table: the scenario's columns, then a
 * {@code notes} column holding the status and reason of rows that did not measure.
 */
final class MarkdownTable {

  private MarkdownTable() {}

  static String render(Presentation presentation, List<Row> rows) {
    List<Column> columns = new ArrayList<>(presentation.columns());
    boolean notes = rows.stream().anyMatch(r -> !r.measured());
    StringBuilder sb = new StringBuilder();
    sb.append('|');
    for (Column c : columns) {
      sb.append(' ').append(c.header()).append(" |");
    }
    if (notes) {
      sb.append(" notes |");
    }
    sb.append("\n|");
    for (Column c : columns) {
      sb.append(numeric(c, rows) ? "---:|" : "---|");
    }
    if (notes) {
      sb.append("---|");
    }
    sb.append('\n');
    for (Row row : rows) {
      sb.append('|');
      for (Column c : columns) {
        sb.append(' ').append(Formats.cell(row.get(c.field()))).append(" |");
      }
      if (notes) {
        sb.append(' ').append(noteOf(row)).append(" |");
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static String noteOf(Row row) {
    if (row.measured()) {
      Object note = row.get("note");
      return note == null ? "" : Formats.cell(note);
    }
    return Formats.cell(row.get(Row.STATUS) + ": " + row.get(Row.REASON));
  }

  private static boolean numeric(Column column, List<Row> rows) {
    boolean any = false;
    for (Row row : rows) {
      Object v = row.get(column.field());
      if (v != null && !(v instanceof Number)) {
        return false;
      }
      any |= v != null;
    }
    return any;
  }
}
