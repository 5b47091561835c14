package dev.larder.bench.harness;

import dev.larder.bench.scenario.Input;
import dev.larder.bench.scenario.RepositoryRoot;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * Checks that the files scenarios read ({@link Scenario#inputs}) are there, before any trial runs:
 * {@link #missing} only looks for them (cheap, done by every {@code ./larder bench} run); {@link
 * #verify} also reads each one and compares its content with the checksum it declares ({@code
 * ./larder bench --check-inputs}, run by CI from a fresh clone).
 *
 * <p>Stateless and thread-safe.
 */
public final class InputCheck {

  private InputCheck() {}

  /**
   * Returns one line per input that is missing or not a readable file, naming the scenario, the
   * file and where to get it; empty if every input is there.
   *
   * @param scenarios the scenarios of a run
   * @param options the run's options
   * @throws IllegalArgumentException if a parameter naming an input is malformed
   */
  public static List<String> missing(List<Scenario> scenarios, RunOptions options) {
    List<String> problems = new ArrayList<>();
    for (Scenario scenario : scenarios) {
      for (Input input : scenario.inputs(options)) {
        if (!present(input)) {
          problems.add(missingLine(scenario, input));
        }
      }
    }
    return problems;
  }

  /**
   * Checks every input of every scenario: present, readable and, where a checksum is declared, with
   * that content. Prints one line per scenario (how many inputs, where) and one per problem.
   *
   * @param scenarios the scenarios to check
   * @param options the options they would run with
   * @param out receives the report
   * @return true if every input is there with the declared content
   * @throws IllegalArgumentException if a parameter naming an input is malformed
   */
  public static boolean verify(List<Scenario> scenarios, RunOptions options, PrintStream out) {
    Map<Scenario, List<Input>> inputs = new LinkedHashMap<>();
    scenarios.forEach(scenario -> inputs.put(scenario, scenario.inputs(options)));
    out.printf("repository root: %s%n", RepositoryRoot.get());
    boolean ok = true;
    for (Map.Entry<Scenario, List<Input>> entry : inputs.entrySet()) {
      Scenario scenario = entry.getKey();
      List<String> problems = new ArrayList<>();
      for (Input input : entry.getValue()) {
        String problem = problem(input);
        if (problem != null) {
          problems.add(
              problem.isEmpty()
                  ? missingLine(scenario, input)
                  : scenario.name() + ": " + input.path() + " " + problem);
        }
      }
      out.printf("%-12s %s%n", scenario.name(), summary(entry.getValue(), problems.size()));
      problems.forEach(line -> out.println("  " + line));
      ok &= problems.isEmpty();
    }
    out.flush();
    return ok;
  }

  private static String summary(List<Input> inputs, int problems) {
    if (inputs.isEmpty()) {
      return "reads no input files (generates its data)";
    }
    boolean checksummed = inputs.stream().anyMatch(input -> !input.contentSha256().isEmpty());
    return (inputs.size() - problems)
        + " of "
        + inputs.size()
        + " input files found"
        + (checksummed ? " with their content" : "")
        + ", under "
        + commonParent(inputs);
  }

  private static boolean present(Input input) {
    return Files.isRegularFile(input.path()) && Files.isReadable(input.path());
  }

  private static String missingLine(Scenario scenario, Input input) {
    return scenario.name() + ": " + input.path() + " is missing (" + input.origin() + ")";
  }

  /** Returns null if fine, "" if missing, else what is wrong with the content. */
  private static String problem(Input input) {
    if (!present(input)) {
      return "";
    }
    if (input.contentSha256().isEmpty()) {
      return null;
    }
    try {
      String actual = contentSha256(input);
      return actual.startsWith(input.contentSha256())
          ? null
          : "has content SHA-256 "
              + actual.substring(0, 16)
              + ", expected "
              + input.contentSha256()
              + " ("
              + input.origin()
              + ")";
    } catch (IOException e) {
      return "cannot be read: " + e;
    }
  }

  /** Returns the hexadecimal SHA-256 of the file's content, decompressed if it is gzip. */
  static String contentSha256(Input input) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(input.path()), 1 << 16);
        InputStream content =
            new DigestInputStream(gzipped(raw) ? new GZIPInputStream(raw, 1 << 16) : raw, digest)) {
      content.transferTo(OutputStream.nullOutputStream()); // the digest sees every byte
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  private static boolean gzipped(InputStream in) throws IOException {
    in.mark(2);
    boolean gzip = in.read() == 0x1f && in.read() == 0x8b;
    in.reset();
    return gzip;
  }

  private static String commonParent(List<Input> inputs) {
    Path common = inputs.getFirst().path().getParent();
    for (Input input : inputs) {
      while (common != null && !input.path().startsWith(common)) {
        common = common.getParent();
      }
    }
    return String.valueOf(common);
  }
}
