package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's settings table is the declaration in ServerSetting, row for row. */
class ServerSettingDocsTest {

  @Test
  void readmeTableMatchesTheDeclarations() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("..", "README.md"));
    int header = lines.indexOf("| setting | default | what |");
    assertTrue(header >= 0, "README has the settings table");
    List<String> rows = lines.subList(header + 2, lines.size()).stream()
        .takeWhile(l -> l.startsWith("|")).toList();
    for (ServerSetting s : ServerSetting.values()) {
      String row = "| `" + s.key() + "` | `" + s.defaultValue() + "` | " + s.description() + " |";
      assertTrue(rows.contains(row), "README lacks or differs for: " + row);
    }
    assertEquals(ServerSetting.values().length, rows.size(), "README lists unknown settings");
  }
}
