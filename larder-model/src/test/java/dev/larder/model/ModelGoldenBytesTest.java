package dev.larder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.ValueDictionary;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the model's wire forms (docs/spec/content-node.md): golden/content-node-v2.txt holds the
 * bytes of sample values, and of generated nodes in both flavours, and of the dictionary snapshot
 * the substituting flavour leaves. A change is a new version, never an edited line.
 */
class ModelGoldenBytesTest {

  @SuppressWarnings("JavaUtilDate") // node property values include Dates
  private static final List<Serializable> VALUES =
      List.of(
          7,
          Integer.MIN_VALUE,
          -5L,
          Long.MAX_VALUE,
          0.25f,
          -0.0,
          new Date(1_593_475_200_000L),
          new Date(1_593_475_212_345L),
          "text",
          new NodeRef(ContentModel.SPACES_STORE, "3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
          new NodeRef(ContentModel.SPACES_STORE, "custom-id"),
          ContentModel.AUDITABLE,
          new ContentData(
              "store://2020/6/30/12/5/3f2504e0-4f89-11d3-9a0c-0305e82c3301.bin",
              "text/plain",
              1234,
              "UTF-8",
              Locale.UK),
          new ContentData(null, null, 0, null, null),
          true,
          Locale.FRANCE);

  @Test
  void versionMatchesTheGoldenFile() {
    assertEquals(2, NodeCodecs.WIRE_FORM_VERSION, "a new version needs a new golden file");
  }

  @Test
  void samplesEncodeToTheirGoldenBytesAndBack() throws IOException {
    Map<String, String> golden = read();
    Map<String, String> actual = new LinkedHashMap<>();
    for (int i = 0; i < VALUES.size(); i++) {
      actual.put("plainValue#" + i, hex(NodeCodecs.propertyValue(), VALUES.get(i)));
    }
    ValueDictionary dictionary = NodeCodecs.newDictionary();
    Codec<Node> substituting = NodeCodecs.node(dictionary);
    NodeGenerator generator = new NodeGenerator(42);
    for (int id = 0; id < 3; id++) {
      actual.put("plainNode#" + id, hex(NodeCodecs.node(), generator.node(id)));
      actual.put("substitutedNode#" + id, hex(substituting, generator.node(id)));
    }
    actual.put("dictionarySnapshot", toHex(dictionary.snapshot()));
    StringBuilder mismatches = new StringBuilder();
    actual.forEach(
        (key, hex) -> {
          if (!hex.equals(golden.get(key))) {
            mismatches.append(key).append(' ').append(hex).append('\n');
          }
        });
    assertTrue(
        mismatches.isEmpty(), "bytes differ from golden/content-node-v2.txt:\n" + mismatches);
    for (int i = 0; i < VALUES.size(); i++) {
      byte[] bytes = fromHex(golden.get("plainValue#" + i));
      assertEquals(VALUES.get(i), NodeCodecs.propertyValue().decode(new ByteSource(bytes)));
    }
  }

  private static <T> String hex(Codec<T> codec, T value) {
    ByteSink sink = new ByteSink();
    codec.encode(value, sink);
    return toHex(sink.toByteArray());
  }

  private static String toHex(byte[] bytes) {
    StringBuilder s = new StringBuilder();
    for (byte b : bytes) {
      s.append(String.format("%02x", b & 0xFF));
    }
    return s.toString();
  }

  private static byte[] fromHex(String hex) {
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(hex, 2 * i, 2 * i + 2, 16);
    }
    return out;
  }

  private static Map<String, String> read() throws IOException {
    Map<String, String> lines = new LinkedHashMap<>();
    try (InputStream in =
        ModelGoldenBytesTest.class.getResourceAsStream("/golden/content-node-v2.txt")) {
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
