package dev.larder.bench.hitratio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
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
      assertArrayEquals(new long[] {3, 1, 3, 2}, spec.read(Path.of("unused")).keys(),
          file.toString());
    }
  }

  @Test
  void aRelativeTraceFileIsTakenFromTheWorkingDirectory() {
    TraceSpec spec = HitRatioScenario.traceOf(custom("held/zigzag.trace.gz", "lirs", "100"));
    assertEquals(Path.of("held/zigzag.trace.gz").toAbsolutePath().toString(), spec.file());
  }

  @Test
  void aMissingTracesFolderIsNamedWithTheParameterThatMovesIt() {
    Path missing = folder.resolve("no-such-folder");
    NoSuchFileException e = assertThrows(NoSuchFileException.class,
        () -> TraceCatalog.named("backf").read(missing));
    assertEquals(missing.toString(), e.getFile());
    assertTrue(e.getMessage().contains("-P traces=DIR"), e.getMessage());
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
    assertThrows(IllegalArgumentException.class,
        () -> HitRatioScenario.traceOf(Map.of("trace", "nosuch")));
  }

  @Test
  void malformedCustomTraceParametersAreRejected() {
    String[][] bad = {
        {"", "lirs", "100"}, {"f", "nosuch", "100"}, {"f", "lirs", ""}, {"f", "lirs", "0"},
        {"f", "lirs", "100,x"}, {"f", "lirs", "-5"}};
    for (String[] params : bad) {
      assertThrows(IllegalArgumentException.class,
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
