package dev.larder.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.scenario.Input;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputCheckTest {

  /** SHA-256 of "1\n2\n3\n", first 16 hexadecimal digits. */
  private static final String SHA = "14c5e74c4b96ccef";

  @TempDir Path dir;

  /** A scenario that reads the given files and runs nothing. */
  private record Reading(List<Input> files) implements Scenario {
    @Override
    public String name() {
      return "reading";
    }

    @Override
    public String summary() {
      return "reads files";
    }

    @Override
    public List<Trial> plan(RunOptions options) {
      return List.of();
    }

    @Override
    public List<Parameter> parameters() {
      return List.of();
    }

    @Override
    public List<Input> inputs(RunOptions options) {
      return files;
    }

    @Override
    public List<Row> run(Trial trial, TrialContext context) {
      throw new AssertionError("the input check must not run trials");
    }

    @Override
    public Presentation presentation() {
      throw new AssertionError("the input check must not present rows");
    }
  }

  private Path gzipped(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
      out.write(text.getBytes(StandardCharsets.US_ASCII));
    }
    return file;
  }

  private static String verify(Scenario scenario, boolean expected) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean ok =
        InputCheck.verify(
            List.of(scenario),
            RunOptions.defaults(),
            new PrintStream(out, true, StandardCharsets.UTF_8));
    String report = out.toString(StandardCharsets.UTF_8);
    assertEquals(expected, ok, report);
    return report;
  }

  @Test
  void aMissingFileIsNamedWithWhereToGetIt() {
    Path absent = dir.resolve("absent.trace.gz");
    Scenario scenario = new Reading(List.of(new Input(absent, "get it from X", "")));
    List<String> missing = InputCheck.missing(List.of(scenario), RunOptions.defaults());
    assertEquals(List.of("reading: " + absent + " is missing (get it from X)"), missing);
    assertTrue(verify(scenario, false).contains(absent + " is missing (get it from X)"));
  }

  @Test
  void contentIsComparedAfterDecompressionAndAChangedFileIsReported() throws IOException {
    Path good = gzipped("good.gz", "1\n2\n3\n");
    Path plain = Files.writeString(dir.resolve("plain"), "1\n2\n3\n");
    Path changed = gzipped("changed.gz", "1\n2\n4\n");
    assertTrue(
        verify(new Reading(List.of(new Input(good, "o", SHA), new Input(plain, "o", SHA))), true)
            .contains("2 of 2 input files found with their content"));
    Scenario bad = new Reading(List.of(new Input(good, "o", SHA), new Input(changed, "o", SHA)));
    assertTrue(
        InputCheck.missing(List.of(bad), RunOptions.defaults()).isEmpty(),
        "present files are not missing; only verify reads their content");
    String report = verify(bad, false);
    assertTrue(report.contains("1 of 2 input files found"), report);
    assertTrue(report.contains(changed + " has content SHA-256"), report);
    assertFalse(report.contains(good + " has"), report);
  }

  @Test
  void aScenarioWithoutInputsIsSaidToGenerateItsData() {
    assertTrue(verify(new Reading(List.of()), true).contains("reads no input files"));
  }
}
