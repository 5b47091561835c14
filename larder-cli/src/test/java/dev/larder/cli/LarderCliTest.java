package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The product's {@code ./larder} command: demo's usage errors, help, no bench inside. */
class LarderCliTest {

  @Test
  void demoOptionsOutOfRangeAreUsageErrorsNamingTheOptionAndItsRange() {
    String[][] cases = {
        {"--max-memory-mib", "17592186044416",
            "--max-memory-mib must be a whole number from 17 to 8,796,093,022,207"},
        {"--max-memory-mib", "16", "--max-memory-mib must be a whole number from 17"},
        {"--max-memory-mib", "0", "--max-memory-mib must be a whole number from 17"},
        {"--entries", "0", "--entries must be a whole number from 1 to 1,000,000,000"},
        {"--entries", "-3", "--entries must be a whole number from 1 to 1,000,000,000"},
        {"--entries", "abc", "--entries"}};
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
}
