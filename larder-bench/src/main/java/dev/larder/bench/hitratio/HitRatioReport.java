package dev.larder.bench.hitratio;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Formats rows as a Markdown table (one line per trace and size, one column per implementation, in
 * percent) with the means over the entry-bounded cells, the subject's smallest margin and how many
 * entry-bounded cells are short, and as JSON.
 */
public final class HitRatioReport {

  /**
   * The hit-ratio target's tolerance: a cell is short if the subject is this far below the better
   * baseline.
   */
  public static final double SHORT = 0.005;

  private final List<HitRatioRow> rows;

  HitRatioReport(List<HitRatioRow> rows) {
    this.rows = List.copyOf(rows);
  }

  String markdown(String subject, String baselineA, String baselineB) {
    Set<String> implementations = new LinkedHashSet<>();
    Map<String, Map<String, HitRatioRow>> cells = new LinkedHashMap<>();
    for (HitRatioRow row : rows) {
      implementations.add(row.implementation());
      cells
          .computeIfAbsent(
              row.trace() + " | " + row.size() + (row.byteBound() ? " (bytes)" : ""),
              k -> new LinkedHashMap<>())
          .put(row.implementation(), row);
    }
    boolean compare =
        implementations.contains(subject)
            && implementations.contains(baselineA)
            && implementations.contains(baselineB);
    StringBuilder out = new StringBuilder("| trace | size |");
    implementations.forEach(name -> out.append(' ').append(name).append(" |"));
    if (compare) {
      out.append(" ")
          .append(subject)
          .append(" − max(")
          .append(baselineA)
          .append(", ")
          .append(baselineB)
          .append(") |");
    }
    out.append("\n|---|---:|");
    implementations.forEach(name -> out.append("---:|"));
    out.append(compare ? "---:|\n" : "\n");
    Map<String, List<Double>> sums = new LinkedHashMap<>();
    List<Double> margins = new ArrayList<>();
    for (var cell : cells.entrySet()) {
      out.append("| ").append(cell.getKey()).append(" |");
      for (String name : implementations) {
        HitRatioRow row = cell.getValue().get(name);
        if (row == null) {
          out.append(" – |");
          continue;
        }
        double value = row.byteBound() ? row.byteHitRatio() : row.hitRatio();
        if (!row.byteBound()) {
          sums.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        out.append(' ').append(percent(value)).append(" |");
      }
      if (compare) {
        double margin = margin(cell.getValue(), subject, baselineA, baselineB);
        if (!cell.getKey().endsWith("(bytes)")) {
          margins.add(margin);
        }
        out.append(' ').append(String.format(Locale.ROOT, "%+.2f", 100 * margin)).append(" |");
      }
      out.append('\n');
    }
    out.append("| **mean (entry-bounded cells)** | |");
    for (String name : implementations) {
      out.append(" **").append(percent(mean(sums.getOrDefault(name, List.of())))).append("** |");
    }
    if (compare) {
      long shortCells = margins.stream().filter(m -> m < -SHORT).count();
      out.append(
          String.format(
              Locale.ROOT,
              " min %+.2f; %d of %d below %+.2f |",
              100 * margins.stream().mapToDouble(Double::doubleValue).min().orElse(0),
              shortCells,
              margins.size(),
              -100 * SHORT));
    }
    out.append('\n');
    return out.toString();
  }

  private static double margin(Map<String, HitRatioRow> cell, String subject, String a, String b) {
    HitRatioRow s = cell.get(subject);
    HitRatioRow x = cell.get(a);
    HitRatioRow y = cell.get(b);
    if (s == null || x == null || y == null) {
      return 0;
    }
    if (s.byteBound()) {
      return s.byteHitRatio() - Math.max(x.byteHitRatio(), y.byteHitRatio());
    }
    return s.hitRatio() - Math.max(x.hitRatio(), y.hitRatio());
  }

  String json() {
    StringBuilder out = new StringBuilder("[\n");
    for (int i = 0; i < rows.size(); i++) {
      HitRatioRow row = rows.get(i);
      out.append(
          String.format(
              Locale.ROOT,
              "  {\"trace\": \"%s\", \"size\": \"%s\", \"implementation\": \"%s\", "
                  + "\"hitRatio\": %.6f, \"byteHitRatio\": %.6f, \"byteBound\": %b}%s%n",
              row.trace(),
              row.size(),
              row.implementation(),
              row.hitRatio(),
              row.byteHitRatio(),
              row.byteBound(),
              i + 1 < rows.size() ? "," : ""));
    }
    return out.append("]\n").toString();
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
  }

  private static String percent(double ratio) {
    return String.format(Locale.ROOT, "%.2f", 100 * ratio);
  }
}
