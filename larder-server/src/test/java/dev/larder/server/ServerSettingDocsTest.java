package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The settings table of docs/server.md is the declaration in ServerSetting, row for row. */
class ServerSettingDocsTest {

  @Test
  void settingsTableMatchesTheDeclarations() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("..", "docs", "server.md"));
    int header = lines.indexOf("| setting | default | what |");
    assertTrue(header >= 0, "docs/server.md has the settings table");
    List<String> rows =
        lines.subList(header + 2, lines.size()).stream().takeWhile(l -> l.startsWith("|")).toList();
    for (ServerSetting s : ServerSetting.values()) {
      String row = "| `" + s.key() + "` | `" + s.defaultValue() + "` | " + s.description() + " |";
      assertTrue(rows.contains(row), "docs/server.md lacks or differs for: " + row);
    }
    assertEquals(
        ServerSetting.values().length, rows.size(), "docs/server.md lists unknown settings");
  }
}
