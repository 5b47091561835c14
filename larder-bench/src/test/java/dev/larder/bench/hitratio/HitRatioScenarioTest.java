package dev.larder.bench.hitratio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.scenario.Input;
import dev.larder.bench.scenario.RepositoryRoot;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Trial;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HitRatioScenarioTest {

  @TempDir Path folder;

  private static Map<String, String> custom(String file, String format, String sizes) {
    Map<String, String> params = new HashMap<>();
    params.put("file", file);
    params.put("format", format);
    params.put("sizes", sizes);
    return params;
  }

  @Test
  void aTraceOutsideTheCatalogueIsNamedAfterItsFileAndReadGzippedOrNot() throws IOException {
    byte[] text = "3\n1\n*\n3\n2\n".getBytes(StandardCharsets.US_ASCII);
    Path plain = Files.write(folder.resolve("zigzag"), text);
    Path gzipped = folder.resolve("zigzag.trace.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gzipped))) {
      out.write(text);
    }
    for (Path file : new Path[] {plain, gzipped}) {
      TraceSpec spec = HitRatioScenario.traceOf(custom(file.toString(), "LIRS", "2, 3"));
      assertEquals("zigzag", spec.name());
      assertArrayEquals(new long[] {2, 3}, spec.sizes());
      assertArrayEquals(
          new long[] {3, 1, 3, 2}, spec.read(Path.of("unused")).keys(), file.toString());
    }
  }

  @Test
  void relativePathsAreTakenFromTheRepositoryRootNotTheWorkingDirectory() {
    Path root = RepositoryRoot.get();
    // surefire runs in larder-bench/; the root is found from the code's location all the same
    assertTrue(Files.isRegularFile(root.resolve("larder")), root.toString());
    TraceSpec spec = HitRatioScenario.traceOf(custom("held/zigzag.trace.gz", "lirs", "100"));
    assertEquals(root.resolve("held/zigzag.trace.gz").toString(), spec.file());
    assertEquals(
        root.resolve("elsewhere"), HitRatioScenario.tracesFolder(Map.of("traces", "elsewhere")));
    String previous = System.getProperty(RepositoryRoot.PROPERTY);
    System.setProperty(RepositoryRoot.PROPERTY, folder.toString());
    try {
      assertEquals(folder.resolve("data/traces"), HitRatioScenario.tracesFolder(Map.of()));
    } finally {
      if (previous == null) {
        System.clearProperty(RepositoryRoot.PROPERTY);
      } else {
        System.setProperty(RepositoryRoot.PROPERTY, previous);
      }
    }
  }

  @Test
  void everyCatalogueTraceShipsWithTheRepositoryAndTheTrialsGetAbsolutePaths() {
    HitRatioScenario scenario = new HitRatioScenario();
    List<Input> inputs = scenario.inputs(RunOptions.defaults());
    assertEquals(TraceCatalog.ALL.size(), inputs.size());
    Path shipped = RepositoryRoot.get().resolve("data/traces");
    for (Input input : inputs) {
      assertTrue(input.path().startsWith(shipped), input.path().toString());
      assertTrue(Files.isRegularFile(input.path()), input.path() + " " + input.origin());
      assertEquals(16, input.contentSha256().length(), input.path().toString());
    }
    for (Trial trial : scenario.plan(RunOptions.defaults())) {
      assertEquals(shipped.toString(), trial.param("traces"));
    }
    Trial custom =
        scenario
            .plan(
                new RunOptions(
                    true, Map.of("file", "t.trace", "format", "lirs", "sizes", "2"), Set.of()))
            .getFirst();
    assertEquals(RepositoryRoot.get().resolve("t.trace").toString(), custom.param("file"));
  }

  @Test
  void anUnknownTraceNameFailsWhenPlanningAndListsTheKnownOnes() {
    RunOptions options = new RunOptions(false, Map.of("only", "cpp,nosuch"), Set.of());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new HitRatioScenario().plan(options));
    assertTrue(
        e.getMessage().contains("nosuch") && e.getMessage().contains("backf"), e.getMessage());
  }

  @Test
  void aMissingTracesFolderIsNamedWithTheParameterThatMovesIt() {
    Path missing = folder.resolve("no-such-folder");
    NoSuchFileException e =
        assertThrows(NoSuchFileException.class, () -> TraceCatalog.named("backf").read(missing));
    assertEquals(missing.toString(), e.getFile());
    assertTrue(e.getMessage().contains("-P traces=DIR"), e.getMessage());
    assertTrue(e.getMessage().contains("data/traces"), e.getMessage());
  }

  @Test
  void byteBoundsApplyOnlyToFormatsThatCarrySizes() {
    Map<String, String> params = custom("/x/request.trace", "adaptsize", "100");
    params.put("mib", "8");
    assertArrayEquals(new long[] {8L << 20}, HitRatioScenario.traceOf(params).byteSizes());
    params.put("format", "lirs");
    assertArrayEquals(new long[0], HitRatioScenario.traceOf(params).byteSizes());
  }

  @Test
  void catalogueTracesAreFoundByName() {
    assertEquals("backf", HitRatioScenario.traceOf(Map.of("trace", "BACKF")).name());
    assertThrows(
        IllegalArgumentException.class, () -> HitRatioScenario.traceOf(Map.of("trace", "nosuch")));
  }

  @Test
  void malformedCustomTraceParametersAreRejected() {
    String[][] bad = {
      {"", "lirs", "100"},
      {"f", "nosuch", "100"},
      {"f", "lirs", ""},
      {"f", "lirs", "0"},
      {"f", "lirs", "100,x"},
      {"f", "lirs", "-5"}
    };
    for (String[] params : bad) {
      assertThrows(
          IllegalArgumentException.class,
          () -> HitRatioScenario.traceOf(custom(params[0], params[1], params[2])),
          String.join(" ", params));
    }
    Map<String, String> noSizes = custom("f", "lirs", "1");
    noSizes.remove("sizes");
    assertThrows(IllegalArgumentException.class, () -> HitRatioScenario.traceOf(noSizes));
  }

  @Test
  void theMibParameterMustListPositiveWholeNumbers() {
    assertArrayEquals(new long[] {6L << 20, 128L << 20}, HitRatioScenario.mebibytes("6, 128"));
    for (String bad : new String[] {"", "0", "-1", "8.5", "x", "8,,9", "9999999999999999"}) {
      assertThrows(IllegalArgumentException.class, () -> HitRatioScenario.mebibytes(bad), bad);
    }
  }
}
