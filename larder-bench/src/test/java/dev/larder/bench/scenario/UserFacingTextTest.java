package dev.larder.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.larder.bench.BenchCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * What a user reads of the benchmark suite (the scenario list, each scenario's summary, which also
 * heads its results file, and the help) names the experiments, not the project's history ("issue
 * 24", "seed 001").
 */
class UserFacingTextTest {

  private static final Pattern HISTORY = Pattern.compile("(?i)\\b(issue|seed)\\s*#?\\d+");

  @Test
  void scenarioSummariesAndHelpNameNoIssueOrSeed() {
    for (Scenario scenario : Scenarios.all()) {
      assertFalse(
          HISTORY.matcher(scenario.summary()).find(), scenario.name() + ": " + scenario.summary());
    }
    for (String[] args : new String[][] {{"--list"}, {"--help"}}) {
      StringWriter out = new StringWriter();
      CommandLine cli = BenchCommand.commandLine();
      cli.setOut(new PrintWriter(out));
      cli.execute(args);
      assertFalse(HISTORY.matcher(out.toString()).find(), out.toString());
    }
  }
}
