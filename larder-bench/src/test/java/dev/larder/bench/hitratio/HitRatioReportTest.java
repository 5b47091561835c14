package dev.larder.bench.hitratio;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HitRatioReportTest {

  private static void cell(
      List<HitRatioRow> rows, String size, double lru, double caffeine, double larder) {
    rows.add(new HitRatioRow("t", size, "LRU", lru, lru, false));
    rows.add(new HitRatioRow("t", size, "Caffeine", caffeine, caffeine, false));
    rows.add(new HitRatioRow("t", size, "Larder", larder, larder, false));
  }

  @Test
  void theSummaryGivesTheMeansTheWorstMarginAndTheShortCells() {
    List<HitRatioRow> rows = new ArrayList<>();
    cell(rows, "1", 0.50, 0.40, 0.496); // −0.40 points: within the tolerance
    cell(rows, "2", 0.30, 0.60, 0.58); // −2.00 points: short
    cell(rows, "3", 0.20, 0.10, 0.30); // +10.00 points
    String table = new HitRatioReport(rows).markdown("Larder", "LRU", "Caffeine");
    assertTrue(table.contains("| t | 2 | 30.00 | 60.00 | 58.00 | -2.00 |"), table);
    assertTrue(
        table.contains("**33.33** | **36.67** | **45.87** | min -2.00; 1 of 3 below -0.50 |"),
        table);
  }
}
