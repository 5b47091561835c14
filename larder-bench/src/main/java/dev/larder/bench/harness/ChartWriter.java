package dev.larder.bench.harness;

import dev.larder.bench.scenario.ChartSpec;
import dev.larder.bench.scenario.Row;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.style.Styler;

/**
 * Draws a {@link ChartSpec} from rows with XChart and saves it as PNG and SVG. Series without a
 * value for a category are drawn with no bar there.
 */
final class ChartWriter {

  private static final int WIDTH = 900;
  private static final int HEIGHT = 500;

  private ChartWriter() {}

  /**
   * Returns the files written, empty if no row was selected.
   *
   * @param spec the chart
   * @param rows all rows of the scenario; those the spec does not select are ignored
   * @param base the path without extension; {@code .png} and {@code .svg} are added
   * @throws IOException if a file cannot be written
   */
  static List<Path> write(ChartSpec spec, List<Row> rows, Path base) throws IOException {
    List<Row> selected = rows.stream().filter(spec::selects).toList();
    if (selected.isEmpty()) {
      return List.of();
    }
    CategoryChart chart = build(spec, selected);
    String png = base + ".png";
    String svg = base + ".svg";
    BitmapEncoder.saveBitmap(chart, png, BitmapEncoder.BitmapFormat.PNG);
    VectorGraphicsEncoder.saveVectorGraphic(
        chart, svg, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    return List.of(Path.of(png), Path.of(svg));
  }

  static CategoryChart build(ChartSpec spec, List<Row> selected) {
    Set<String> categories = new LinkedHashSet<>();
    Set<String> series = new LinkedHashSet<>();
    for (Row row : selected) {
      categories.add(String.valueOf(row.get(spec.categoryField())));
      series.add(String.valueOf(row.get(spec.seriesField())));
    }
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(spec.title())
            .xAxisTitle(spec.categoryField())
            .yAxisTitle(spec.yAxisTitle())
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setYAxisLogarithmic(spec.logarithmic());
    chart.getStyler().setXAxisLabelRotation(categories.size() > 6 ? 45 : 0);
    List<String> xs = new ArrayList<>(categories);
    for (String s : series) {
      List<Double> ys = new ArrayList<>();
      for (String x : xs) {
        ys.add(valueOf(spec, selected, s, x));
      }
      chart.addSeries(s, xs, ys);
    }
    return chart;
  }

  private static Double valueOf(ChartSpec spec, List<Row> rows, String series, String category) {
    for (Row row : rows) {
      if (Objects.equals(String.valueOf(row.get(spec.seriesField())), series)
          && Objects.equals(String.valueOf(row.get(spec.categoryField())), category)) {
        return row.number(spec.valueField());
      }
    }
    return null;
  }
}
