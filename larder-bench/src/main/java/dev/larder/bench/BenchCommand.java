package dev.larder.bench;

import dev.larder.bench.harness.BenchRunner;
import dev.larder.bench.harness.InputCheck;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Scenarios;
import dev.larder.bench.scenario.Trial;
import dev.larder.cli.ShortUsageErrors;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./larder bench [--quick] <scenario>...|all}: runs benchmark scenarios. The benchmark
 * suite's own command and main class, run on larder-bench's class path (the peers, JMH), apart from
 * the product's command in larder-cli: the {@code ./larder} script sends {@code bench} here. Exit
 * status 0 on success, 1 if a trial failed or an input is missing, 2 for a usage error.
 */
@Command(
    name = "larder bench",
    mixinStandardHelpOptions = true,
    version = "larder bench 0.1.0-SNAPSHOT",
    description = {
      "Runs benchmark scenarios against Larder and its peers, each measurement in a fresh JVM.",
      "Writes a Markdown table to stdout and <out>/<scenario>.json plus PNG and SVG charts.",
      "Exits 1 if a trial failed (after every scenario has run and written its results; the "
          + "trial's log is under <out>/logs), 2 on bad usage. An implementation that cannot "
          + "run a configuration (\"unavailable\") is not a failure. A missing input file (e.g. "
          + "a trace) stops the run before any trial, with exit 1 and a line saying where to "
          + "get it."
    })
public final class BenchCommand implements Callable<Integer> {

  @Parameters(
      paramLabel = "SCENARIO",
      arity = "0..*",
      description = "Scenario names, or 'all'. See --list.")
  List<String> scenarios = new ArrayList<>();

  @Option(names = "--quick", description = "Scale every scenario down (all of them in minutes).")
  boolean quick;

  @Option(
      names = "--list",
      description =
          "List the scenarios, the implementations each runs"
              + " (the names --only accepts; with --quick, a quick run's) and their -P parameters (what"
              + " each accepts, its defaults), and exit.")
  boolean list;

  @Option(
      names = "--check-inputs",
      description =
          "Run nothing: check that every input file the scenarios would read is there,"
              + " with its content checksum, then exit 0 if so, 1 if not.")
  boolean checkInputs;

  @Option(
      names = {"-P", "--param"},
      paramLabel = "NAME=VALUE",
      description = "A scenario parameter, e.g. -P nodes=200000 (see larder-bench/README.md).")
  List<String> params = new ArrayList<>();

  @Option(
      names = "--only",
      split = ",",
      paramLabel = "IMPL",
      description =
          "Run only these implementations (comma-separated, case-insensitive; --list"
              + " names each scenario's).")
  List<String> only = new ArrayList<>();

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Directory for results (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("bench-results");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * Runs the command and exits the JVM with its status.
   *
   * @param args the arguments after {@code ./larder bench}
   */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** Returns the configured picocli command line (tests use it to parse without running). */
  public static CommandLine commandLine() {
    return new CommandLine(new BenchCommand())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setParameterExceptionHandler(new ShortUsageErrors());
  }

  @Override
  public Integer call() throws IOException {
    if (list) {
      for (Scenario s : Scenarios.all()) {
        spec.commandLine().getOut().printf("%-12s %s%n", s.name(), s.summary());
        spec.commandLine()
            .getOut()
            .printf("%-12s   --only %s%n", "", String.join(",", implementations(s, options())));
        for (Parameter parameter : s.parameters()) {
          spec.commandLine().getOut().printf("%-12s   -P %s%n", "", parameter.describe());
        }
      }
      spec.commandLine().getOut().flush();
      return 0;
    }
    List<Scenario> selected = select();
    RunOptions options = options();
    checkParameters(selected, options);
    checkImplementations(selected, options);
    if (checkInputs) {
      return usageErrorIfMalformed(() -> InputCheck.verify(selected, options, System.out)) ? 0 : 1;
    }
    List<String> missing = usageErrorIfMalformed(() -> InputCheck.missing(selected, options));
    if (!missing.isEmpty()) {
      System.err.printf(
          "larder bench: %d input file%s missing, nothing was run:%n",
          missing.size(), missing.size() == 1 ? "" : "s");
      missing.forEach(line -> System.err.println("  " + line));
      return 1;
    }
    BenchRunner runner = new BenchRunner(out, System.out, System.err);
    List<String> failed = new ArrayList<>();
    for (Scenario scenario : selected) {
      for (Row row : runner.run(scenario, options)) {
        if (row.failed()) {
          failed.add(scenario.name() + " " + row.implementation() + ": " + row.get(Row.REASON));
        }
      }
    }
    if (failed.isEmpty()) {
      return 0;
    }
    System.err.printf(
        "larder bench: %d failed (logs under %s):%n", failed.size(), out.resolve("logs"));
    failed.forEach(line -> System.err.println("  " + line));
    return 1;
  }

  /**
   * Refuses, before anything runs, a {@code -P} name that no selected scenario takes, then a value
   * that a scenario's declaration does not accept or that its plan refuses, each with the
   * parameter's name and what it accepts.
   */
  private void checkParameters(List<Scenario> selected, RunOptions options) {
    Set<String> known = new TreeSet<>();
    selected.forEach(scenario -> scenario.parameters().forEach(p -> known.add(p.name())));
    List<String> unknown =
        options.params().keySet().stream().filter(name -> !known.contains(name)).toList();
    if (!unknown.isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "-P "
              + String.join(",", unknown)
              + ": no selected scenario takes it (they take: "
              + known
              + ")");
    }
    usageErrorIfMalformed(
        () -> {
          for (Scenario scenario : selected) {
            for (Parameter parameter : scenario.parameters()) {
              parameter.check(options);
            }
            scenario.plan(options);
          }
          return null;
        });
  }

  /**
   * Refuses, before anything runs, an {@code --only} name that no selected scenario has: a typo
   * would otherwise run nothing and report success.
   */
  private void checkImplementations(List<Scenario> selected, RunOptions options) {
    if (only.isEmpty()) {
      return;
    }
    Set<String> known = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    for (Scenario scenario : selected) {
      known.addAll(implementations(scenario, options));
    }
    List<String> unknown = only.stream().filter(name -> !known.contains(name)).toList();
    if (!unknown.isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--only "
              + String.join(",", unknown)
              + ": no such implementation in this run (known: "
              + known
              + ")");
    }
  }

  /** Returns the implementations the scenario's trials measure with every one included. */
  private static Set<String> implementations(Scenario scenario, RunOptions options) {
    RunOptions everyImplementation = new RunOptions(options.quick(), options.params(), Set.of());
    Set<String> names = new LinkedHashSet<>();
    for (Trial trial : scenario.plan(everyImplementation)) {
      names.addAll(trial.implementations());
    }
    return names;
  }

  /** Returns what {@code check} returns; a malformed parameter it meets is a usage error. */
  private <T> T usageErrorIfMalformed(Supplier<T> check) {
    try {
      return check.get();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  RunOptions options() {
    return new RunOptions(quick, parameters(), new LinkedHashSet<>(only));
  }

  /**
   * The {@code -P} values by name (picocli's own map option words a missing {@code =} as "option
   * option").
   */
  private Map<String, String> parameters() {
    Map<String, String> byName = new LinkedHashMap<>();
    for (String param : params) {
      int eq = param.indexOf('=');
      if (eq <= 0) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "-P "
                + param
                + ": give a NAME=VALUE pair, e.g. -P nodes=200000 (--list shows each scenario's)");
      }
      byName.put(param.substring(0, eq), param.substring(eq + 1));
    }
    return byName;
  }

  List<Scenario> select() {
    if (scenarios.isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "name a scenario or 'all' (known: " + Scenarios.names() + ")");
    }
    if (scenarios.size() == 1 && scenarios.getFirst().equalsIgnoreCase("all")) {
      return Scenarios.all();
    }
    List<Scenario> selected = new ArrayList<>();
    for (String name : scenarios) {
      selected.add(
          Scenarios.named(name)
              .orElseThrow(
                  () ->
                      new CommandLine.ParameterException(
                          spec.commandLine(),
                          "unknown scenario '"
                              + name
                              + "'"
                              + ClosestNames.didYouMean(name, Scenarios.names())
                              + " (known: "
                              + Scenarios.names()
                              + ", or all)")));
    }
    return selected;
  }
}
