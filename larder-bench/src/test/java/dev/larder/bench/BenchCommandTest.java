package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.RunOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code ./larder bench}: parsing, usage errors before anything runs, exit codes, inputs. */
class BenchCommandTest {
  private static BenchCommand parseBench(String... args) {
    CommandLine cli = BenchCommand.commandLine();
    cli.parseArgs(args);
    return cli.getCommand();
  }

  @Test
  void parsesQuickAllWithParametersAndFilters() {
    BenchCommand bench =
        parseBench(
            "--quick",
            "-P",
            "nodes=5000",
            "-P",
            "threads=1,2",
            "--only",
            "Caffeine,OHC",
            "--out",
            "/tmp/x",
            "all");
    assertTrue(bench.quick);
    assertEquals(List.of("all"), bench.scenarios);
    assertEquals(Path.of("/tmp/x"), bench.out);
    RunOptions options = bench.options();
    assertEquals(Map.of("nodes", "5000", "threads", "1,2"), options.params());
    assertEquals(Set.of("Caffeine", "OHC"), options.implementations());
    assertTrue(options.includes("ohc"));
    assertFalse(options.includes("Ehcache-heap"));
    assertEquals(5000, new Parameter.WholeNumber("nodes", 1, 10_000, 1, 2).get(options));
    assertEquals(List.of("1", "2"), options.listParam("threads", List.of(), List.of()));
  }

  @Test
  void defaultsAreFullRunOfEverything() {
    BenchCommand bench = parseBench("overhead", "startup");
    assertFalse(bench.quick);
    assertEquals(List.of("overhead", "startup"), bench.scenarios);
    assertEquals(Path.of("bench-results"), bench.out);
    RunOptions options = bench.options();
    assertTrue(options.includes("anything"));
    assertEquals(7, new Parameter.WholeNumber("absent", 1, 10, 7, 8).get(options));
  }

  @Test
  void unknownScenarioIsAUsageError() {
    StringWriter err = new StringWriter();
    CommandLine cli = BenchCommand.commandLine();
    cli.setErr(new PrintWriter(err));
    assertEquals(2, cli.execute("no-such-scenario"));
    assertTrue(err.toString().contains("unknown scenario 'no-such-scenario'"), err.toString());
  }

  @Test
  void listNamesTheRegisteredScenarios() {
    StringWriter out = new StringWriter();
    CommandLine cli = BenchCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    assertEquals(0, cli.execute("--list"));
    for (String name : List.of("overhead", "throughput", "concurrency", "startup")) {
      assertTrue(out.toString().contains(name), out.toString());
    }
  }

  @Test
  void badOptionIsAUsageError() {
    CommandLine cli = BenchCommand.commandLine();
    cli.setErr(new PrintWriter(new StringWriter()));
    assertEquals(2, cli.execute("--no-such-option", "all"));
  }

  @Test
  void anOnlyNameNoSelectedScenarioHasIsAUsageErrorBeforeAnythingRuns(@TempDir Path dir) {
    StringWriter err = new StringWriter();
    CommandLine cli = BenchCommand.commandLine();
    cli.setErr(new PrintWriter(err));
    assertEquals(
        2, cli.execute("--quick", "--out", dir.toString(), "--only", "Caffeine,Nope", "startup"));
    assertTrue(err.toString().contains("--only Nope: no such implementation"), err.toString());
    assertTrue(err.toString().contains("Caffeine"), err.toString());
    assertFalse(Files.exists(dir.resolve("startup.json")), "nothing should have run");
  }

  @Test
  void aParameterNoSelectedScenarioTakesIsAUsageErrorBeforeAnythingRuns(@TempDir Path dir) {
    StringWriter err = new StringWriter();
    CommandLine cli = BenchCommand.commandLine();
    cli.setErr(new PrintWriter(err));
    assertEquals(2, cli.execute("--quick", "--out", dir.toString(), "-P", "cache=5", "startup"));
    assertTrue(err.toString().contains("-P cache: no selected scenario takes it"), err.toString());
    assertTrue(err.toString().contains("caches"), err.toString());
    assertFalse(Files.exists(dir.resolve("startup.json")), "nothing should have run");
  }

  /** Runs the CLI with stdout and stderr captured. @return the exit code and stderr */
  private static String[] runQuietly(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
      int code = BenchCommand.commandLine().execute(args);
      return new String[] {Integer.toString(code), errors.toString(StandardCharsets.UTF_8)};
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  @Test
  void aRunExitsWithOneIfATrialFailedAndZeroIfNone(@TempDir Path dir) throws IOException {
    Path malformed = Files.writeString(dir.resolve("bad.trace"), "7\n");
    String[] failed =
        runQuietly(
            "hitratio",
            "--only",
            "LRU",
            "-P",
            "file=" + malformed,
            "-P",
            "format=arc",
            "-P",
            "sizes=2",
            "--out",
            dir.resolve("a").toString());
    assertEquals("1", failed[0], failed[1]);
    assertTrue(failed[1].contains("1 failed"), failed[1]);
    assertTrue(failed[1].contains("expected 4 fields"), failed[1]);

    Path trace = Files.writeString(dir.resolve("t.trace"), "1\n2\n1\n");
    String[] passed =
        runQuietly(
            "hitratio",
            "--only",
            "LRU",
            "-P",
            "file=" + trace,
            "-P",
            "format=lirs",
            "-P",
            "sizes=2",
            "--out",
            dir.resolve("b").toString());
    assertEquals("0", passed[0], passed[1]);
  }

  @Test
  void aMissingInputStopsTheRunBeforeAnyTrialAndSaysWhereToGetIt(@TempDir Path dir) {
    Path out = dir.resolve("out");
    String[] missing =
        runQuietly(
            "--quick",
            "hitratio",
            "--only",
            "LRU",
            "-P",
            "traces=" + dir.resolve("no-such-folder"),
            "--out",
            out.toString());
    assertEquals("1", missing[0], missing[1]);
    assertTrue(missing[1].contains("4 input files missing, nothing was run"), missing[1]);
    assertTrue(
        missing[1].contains(
            dir.resolve("no-such-folder/lirs/cpp.trace.gz")
                + " is missing"
                + " (expected in the folder named by -P traces"),
        missing[1]);
    assertFalse(Files.exists(out.resolve("hitratio.json")), "nothing should have run");
  }

  @Test
  void checkInputsFindsEveryScenariosInputsInTheRepositoryAndReportsMissingOnes(@TempDir Path dir) {
    PrintStream out = System.out;
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(report, true, StandardCharsets.UTF_8));
      CommandLine cli = BenchCommand.commandLine();
      assertEquals(0, cli.execute("--check-inputs", "all"));
      assertEquals(1, cli.execute("--check-inputs", "-P", "traces=" + dir, "hitratio"));
    } finally {
      System.setOut(out);
    }
    String text = report.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("hitratio     22 of 22 input files found with their content"), text);
    assertTrue(text.contains("hitratio     0 of 22 input files found"), text);
    assertTrue(text.contains(dir.resolve("arc/OLTP.lis.gz") + " is missing"), text);
    for (String name :
        List.of("memory", "overhead", "throughput", "concurrency", "startup", "codec")) {
      assertTrue(text.contains(name), text);
    }
  }

  @Test
  void badNumbersAreUsageErrorsNamingTheParameterAndItsRangeBeforeAnythingRuns(@TempDir Path dir) {
    String[][] cases = {
      {"memory", "nodes=abc", "-P nodes=abc: nodes must be a whole number from 1 to 100,000,000"},
      {"memory", "nodes=-5", "-P nodes=-5: nodes must be a whole number from 1 to 100,000,000"},
      {"memory", "nodes=99999999999999999999", "nodes must be a whole number from 1"},
      {"memory", "repetitions=2", "repetitions must be a whole number from 3 to 1,000"},
      {
        "throughput",
        "threads=1,x",
        "threads must be a comma-separated list of whole numbers,"
            + " each from 1 to 1,024 ('x' is not)"
      },
      {"throughput", "capacityFraction=2", "capacityFraction must be a number from 0.0001 to 1"},
      {
        "throughput",
        "distributions=zipf,pareto",
        "distributions takes a comma-separated list" + " of zipf, uniform"
      },
      {"overhead", "sizes=512,0", "sizes must be a comma-separated list of whole numbers"},
      {"concurrency", "readers=0", "readers must be a whole number from 1 to 1,024"},
      {"startup", "caches=2000000", "caches must be a whole number from 1 to 1,000,000"},
      {"codec", "forks=-1", "forks must be a whole number from 0 to 20"},
      {"codec", "pools=3", "each pool must be a power of two"},
      {
        "hitratio",
        "mib=0",
        "mib must be a comma-separated list of whole numbers, each from 1 to"
            + " 8,796,093,022,207 ('0' is not)"
      },
      {"hitratio", "only=cpp,nosuch", "no trace named nosuch (known: loop,"}
    };
    for (String[] c : cases) {
      Path out = dir.resolve(c[0] + "-" + c[1].replaceAll("[^a-zA-Z0-9]", "_"));
      String[] result = runQuietly("--quick", "--out", out.toString(), "-P", c[1], c[0]);
      assertEquals("2", result[0], String.join(" ", c) + ": " + result[1]);
      assertTrue(result[1].contains(c[2]), String.join(" ", c) + ": " + result[1]);
      assertFalse(result[1].contains("\tat "), "no stack trace: " + result[1]);
      assertFalse(Files.exists(out), "nothing should have run: " + String.join(" ", c));
    }
  }

  /** Returns stderr of a run that only parses and checks (no scenario runs), and its code. */
  private static String[] usageError(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cli = BenchCommand.commandLine();
    cli.setErr(new PrintWriter(err));
    cli.setOut(new PrintWriter(new StringWriter()));
    return new String[] {Integer.toString(cli.execute(args)), err.toString()};
  }

  @Test
  void aUsageErrorIsShortAndSaysWhereTheHelpIs() {
    String[] result = usageError("--no-such-option", "all");
    assertEquals("2", result[0]);
    assertTrue(result[1].contains("Unknown option: '--no-such-option'"), result[1]);
    assertTrue(result[1].contains("Try 'larder bench --help' for the options."), result[1]);
    assertFalse(result[1].contains("--check-inputs"), "not the whole help: " + result[1]);
    assertTrue(result[1].lines().count() <= 4, result[1]);
  }

  @Test
  void aParameterWithoutItsValueSaysWhatToGive() {
    String[] result = usageError("-P", "nodes", "memory");
    assertEquals("2", result[0]);
    assertTrue(
        result[1].contains("-P nodes: give a NAME=VALUE pair, e.g. -P nodes=200000"), result[1]);
    assertFalse(result[1].contains("option option"), result[1]);
  }

  @Test
  void aMistypedScenarioGetsASuggestion() {
    String[] result = usageError("hitraito");
    assertEquals("2", result[0]);
    assertTrue(
        result[1].contains("unknown scenario 'hitraito', did you mean 'hitratio'?"), result[1]);
    assertTrue(usageError("throughpt")[1].contains("did you mean 'throughput'?"));
    assertFalse(usageError("zzzzzzzz")[1].contains("did you mean"), "nothing close");
    assertEquals(2, ClosestNames.distance("hitraito", "hitratio"));
  }

  @Test
  void listGivesTheNamesOnlyAcceptsForEachScenario(@TempDir Path dir) {
    for (boolean quick : new boolean[] {false, true}) {
      StringWriter out = new StringWriter();
      CommandLine cli = BenchCommand.commandLine();
      cli.setOut(new PrintWriter(out));
      assertEquals(0, quick ? cli.execute("--list", "--quick") : cli.execute("--list"));
      String startup =
          out.toString()
              .lines()
              .dropWhile(line -> !line.startsWith("startup "))
              .filter(line -> line.trim().startsWith("--only "))
              .findFirst()
              .orElseThrow()
              .trim()
              .substring("--only ".length());
      assertTrue(startup.contains("Caffeine"), out.toString());
      // every name listed is one --only accepts for that scenario, in a run of the same kind
      String[] result =
          quick
              ? usageError(
                  "--quick",
                  "--out",
                  dir.toString(),
                  "--only",
                  startup,
                  "--check-inputs",
                  "startup")
              : usageError("--out", dir.toString(), "--only", startup, "--check-inputs", "startup");
      assertEquals("0", result[0], quick + ": " + result[1]);
    }
  }
}
