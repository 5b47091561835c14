package dev.larder.bench.scenario;

import java.util.List;

/**
 * One benchmark scenario of {@code ./larder bench}: what to run, how to run one trial, and how to
 * present the rows.
 *
 * <p>The harness asks the scenario for its {@link #plan trials} in the parent process, runs each
 * trial in a fresh JVM (same classpath, the flags of {@link #jvmFlags} plus the common ones), and
 * there calls {@link #run} on a fresh instance of the scenario. The rows returned travel back as
 * JSON, so their values must be {@code null}, booleans, numbers or strings.
 *
 * <p>Registering a scenario: implement this interface in a public class with a public no-argument
 * constructor, and add the class name as one line to {@code
 * larder-bench/src/main/resources/META-INF/services/dev.larder.bench.scenario.Scenario}. {@code
 * ./larder bench <name>} and {@code ./larder bench all} then pick it up; {@code all} runs scenarios
 * in the order of that file.
 *
 * <p>Implementations are used by one thread at a time and need not be thread-safe.
 */
public interface Scenario {

  /** Returns the name used on the command line and in file names, e.g. {@code "memory"}. */
  String name();

  /** Returns one line saying what the scenario measures, shown by {@code ./larder bench --list}. */
  String summary();

  /**
   * Lists the trials to run, each in its own JVM, in order. Runs in the parent process and must be
   * cheap. A trial for an implementation that is filtered out by {@link RunOptions#includes} should
   * not be planned.
   *
   * @param options the run's options
   * @return the trials, possibly empty
   */
  List<Trial> plan(RunOptions options);

  /**
   * The {@code -P} parameters this scenario reads, in planning or in its trials, each declared once
   * with what it accepts and its defaults. {@code ./larder bench} refuses a parameter that no
   * selected scenario takes, so that a typo does not silently measure the defaults, and checks
   * every value given ({@link Parameter#check}, then {@link #plan}) before anything runs.
   *
   * @return the parameter declarations
   */
  List<Parameter> parameters();

  /**
   * The files this scenario's trials will read under these options, resolved exactly as the trials
   * resolve them. {@code ./larder bench} checks that each exists before any trial runs, and {@code
   * ./larder bench --check-inputs} also checks each one's content against its checksum. A scenario
   * that generates its own data reads no files and returns an empty list.
   *
   * @param options the run's options
   * @return the input files, possibly empty
   * @throws IllegalArgumentException if a parameter that names an input is malformed
   */
  default List<Input> inputs(RunOptions options) {
    return List.of();
  }

  /**
   * Runs one trial inside a fresh JVM and returns its measurements. An implementation that cannot
   * run returns {@link Row#unavailable} rows (or throws: the harness turns an exception into a
   * failed row with the exception's message as the reason).
   *
   * @param trial one of the trials of {@link #plan}
   * @param context options and progress reporting
   * @return one or more rows, each with an {@code implementation} field
   * @throws Exception if the trial fails
   */
  List<Row> run(Trial trial, TrialContext context) throws Exception;

  /**
   * The JVM heap size for this scenario's trials, in the form of {@code -Xmx} (e.g. {@code "2g"}).
   * The harness sets {@code -Xms} to the same value and pre-touches it, so keep it no larger than
   * the trials need.
   *
   * @param options the run's options
   * @return the heap size
   */
  default String heapSize(RunOptions options) {
    return options.quick() ? "512m" : "2g";
  }

  /**
   * Extra JVM flags for this scenario's trials, added after the common ones (for example native
   * memory tracking). Every trial of a scenario gets the same flags.
   *
   * @param options the run's options
   * @return flags, possibly empty
   */
  default List<String> jvmFlags(RunOptions options) {
    return List.of();
  }

  /**
   * The longest a single trial may take before the harness kills it and records a failed row.
   *
   * @param options the run's options
   * @return seconds
   */
  default int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 60 : 900;
  }

  /** Returns the table columns and charts for this scenario's rows. */
  Presentation presentation();
}
