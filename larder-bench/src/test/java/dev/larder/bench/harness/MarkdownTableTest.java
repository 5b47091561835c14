package dev.larder.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import java.util.List;
import org.junit.jupiter.api.Test;

class MarkdownTableTest {

  private static final Presentation PRESENTATION =
      new Presentation(
          List.of(
              Column.of("implementation"),
              new Column("opsPerSecond", "ops/s"),
              new Column("hitRatio", "hit ratio")),
          List.of());

  @Test
  void rightAlignsNumbersAndFormatsThem() {
    String table =
        MarkdownTable.render(
            PRESENTATION,
            List.of(
                Row.of("Larder").put("opsPerSecond", 1234567.8).put("hitRatio", 0.81234),
                Row.of("Caffeine").put("opsPerSecond", 42L)));
    assertEquals(
        """
        | implementation | ops/s | hit ratio |
        |---|---:|---:|
        | Larder | 1,234,568 | 0.812 |
        | Caffeine | 42 |  |
        """,
        table);
  }

  @Test
  void addsANotesColumnForRowsThatDidNotRun() {
    String table =
        MarkdownTable.render(
            PRESENTATION,
            List.of(
                Row.of("OHC").put("opsPerSecond", 10L),
                Row.unavailable("ChronicleMap", "no eviction | none")));
    assertEquals(
        """
        | implementation | ops/s | hit ratio | notes |
        |---|---:|---|---|
        | OHC | 10 |  |  |
        | ChronicleMap |  |  | unavailable: no eviction \\| none |
        """,
        table);
  }
}
