package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The product's {@code ./larder} command: usage errors, help, demo's progress, no bench. */
class LarderCliTest {

  @Test
  void demoOptionsOutOfRangeAreUsageErrorsNamingTheOptionAndItsRange() {
    String[][] cases = {
      {
        "--max-memory-mib",
        "17592186044416",
        "--max-memory-mib must be a whole number from 17 to 8,796,093,022,207"
      },
      {"--max-memory-mib", "16", "--max-memory-mib must be a whole number from 17"},
      {"--max-memory-mib", "0", "--max-memory-mib must be a whole number from 17"},
      {"--entries", "0", "--entries must be a whole number from 1 to 1,000,000,000"},
      {"--entries", "-3", "--entries must be a whole number from 1 to 1,000,000,000"},
      {"--entries", "abc", "--entries"}
    };
    for (String[] c : cases) {
      StringWriter err = new StringWriter();
      CommandLine cli = LarderCli.commandLine();
      cli.setErr(new PrintWriter(err));
      cli.setOut(new PrintWriter(new StringWriter()));
      assertEquals(2, cli.execute("demo", c[0], c[1]), String.join(" ", c) + ": " + err);
      assertTrue(err.toString().contains(c[2]), String.join(" ", c) + ": " + err);
      assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
    }
  }

  @Test
  void helpListsTheProductsCommandsAndSaysWhereTheBenchmarksAre() {
    StringWriter out = new StringWriter();
    CommandLine cli = LarderCli.commandLine();
    cli.setOut(new PrintWriter(out));
    assertEquals(0, cli.execute("--help"));
    for (String command : new String[] {"demo", "serve", "./larder bench"}) {
      assertTrue(out.toString().contains(command), out.toString());
    }
  }

  @Test
  void benchIsNotACommandOfTheProduct() {
    StringWriter err = new StringWriter();
    CommandLine cli = LarderCli.commandLine();
    cli.setErr(new PrintWriter(err));
    cli.setOut(new PrintWriter(new StringWriter()));
    assertEquals(2, cli.execute("bench", "--list"));
    assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
  }

  @Test
  void aUsageErrorIsShortWithSuggestionsAndWhereTheHelpIs() {
    StringWriter err = new StringWriter();
    CommandLine cli = LarderCli.commandLine();
    cli.setErr(new PrintWriter(err));
    cli.setOut(new PrintWriter(new StringWriter()));
    assertEquals(2, cli.execute("demo", "--entires", "5"));
    assertTrue(err.toString().contains("Unknown options: '--entires', '5'"), err.toString());
    assertTrue(err.toString().contains("--entries"), "suggests the option: " + err);
    assertTrue(
        err.toString().contains("Try 'larder demo --help' for the options."), err.toString());
    assertFalse(err.toString().contains("--max-memory-mib"), "not the whole help: " + err);
  }

  @Test
  void demoShowsItsProgressOnTheErrorStream() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = LarderCli.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    assertEquals(
        0,
        cli.execute("demo", "--entries", "2000", "--storage", "HEAP", "--max-memory-mib", "32"),
        err.toString());
    List<String> lines = err.toString().lines().toList();
    assertEquals("loading nodes: 2,000...", lines.getFirst());
    for (int tenth = 1; tenth <= 10; tenth++) {
      assertTrue(
          lines.contains(
              String.format(
                  Locale.ROOT, "loading nodes: %d%% (%,d of 2,000)", tenth * 10, tenth * 200)),
          lines.toString());
    }
    assertTrue(lines.contains("reading them back: 2,200..."), lines.toString());
    assertEquals("reading them back: 100% (2,200 of 2,200)", lines.getLast());
    assertEquals(22, lines.size(), lines.toString());
    assertTrue(
        out.toString().contains("values checked against the generator: all equal"), out.toString());
    assertTrue(out.toString().contains("\n  memory used    "), "a label in words: " + out);
    assertFalse(out.toString().contains("loading"), "the report stays on stdout alone");
  }
}
