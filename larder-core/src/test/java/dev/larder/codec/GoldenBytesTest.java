package dev.larder.codec;

import static dev.larder.codec.CodecAssertions.assertValueEquals;
import static dev.larder.codec.CodecAssertions.encode;
import static dev.larder.codec.CodecAssertions.hex;
import static dev.larder.codec.CodecAssertions.unhex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the wire forms: golden/codecs-v{version}.txt holds the bytes of every catalogue sample.
 * Encoding must produce them and decoding them must give the sample back. A change of any wire form
 * fails here; the fix is a new format version (with a new golden file and a spec update in
 * docs/spec/codecs.md), never an edited golden line.
 */
class GoldenBytesTest {

  @Test
  void wireFormVersionMatchesTheGoldenFile() {
    assertEquals(
        1,
        Codecs.WIRE_FORM_VERSION,
        "a new wire form version needs its own golden file and spec section");
  }

  @Test
  void everySampleEncodesToItsGoldenBytesAndBack() throws IOException {
    Map<String, String> golden = read("/golden/codecs-v" + Codecs.WIRE_FORM_VERSION + ".txt");
    StringBuilder missing = new StringBuilder();
    for (CodecCatalogue.Entry e : CodecCatalogue.all()) {
      for (int i = 0; i < e.samples().size(); i++) {
        Object sample = e.samples().get(i);
        String key = e.name() + "#" + i;
        String actual = hex(encode(e.codec(), sample));
        String expected = golden.get(key);
        if (expected == null) {
          missing.append(key).append(' ').append(actual).append('\n');
          continue;
        }
        assertEquals(expected, actual, key + " (" + CodecAssertions.describe(sample) + ")");
        assertValueEquals(sample, e.codec().decode(new ByteSource(unhex(expected))));
      }
    }
    assertTrue(missing.isEmpty(), "samples without golden bytes:\n" + missing);
  }

  private static Map<String, String> read(String resource) throws IOException {
    Map<String, String> lines = new LinkedHashMap<>();
    try (InputStream in = GoldenBytesTest.class.getResourceAsStream(resource)) {
      if (in == null) {
        return lines;
      }
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n", -1)) {
        if (!line.isBlank() && !line.startsWith("#")) {
          String[] parts = line.trim().split(" ", -1);
          lines.put(parts[0], parts.length > 1 ? parts[1] : "");
        }
      }
    }
    return lines;
  }
}
