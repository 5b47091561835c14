package dev.larder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.ValueDictionary;
import java.io.Serializable;
import org.junit.jupiter.api.Test;

class NodeCodecsTest {

  private final NodeGenerator generator = new NodeGenerator(42);

  @Test
  void plainCodecRoundTripsGeneratedNodes() {
    assertRoundTrips(NodeCodecs.node(), 2_000);
  }

  @Test
  void substitutingCodecRoundTripsGeneratedNodes() {
    ValueDictionary dictionary = NodeCodecs.newDictionary();
    assertRoundTrips(NodeCodecs.node(dictionary), 2_000);
    assertTrue(dictionary.size("qname") >= 17, "aspect and property names are interned");
    assertEquals(
        ContentModel.TEXT_VALUES.size() + ContentModel.USERS.size(),
        dictionary.size("text"),
        "text values and user names");
  }

  @Test
  void substitutionShrinksNodesSeveralTimes() {
    ValueDictionary dictionary = NodeCodecs.newDictionary();
    double plain = averageSize(NodeCodecs.node(), 1_000);
    double substituted = averageSize(NodeCodecs.node(dictionary), 1_000);
    System.out.printf(
        "content node: %.1f bytes plain, %.1f bytes substituted%n", plain, substituted);
    assertTrue(substituted < 160, "substituted node of " + substituted + " bytes");
    assertTrue(plain > 2 * substituted, "plain " + plain + " vs substituted " + substituted);
  }

  @Test
  void propertyValuesOfEveryTagRoundTrip() {
    ValueDictionary dictionary = NodeCodecs.newDictionary();
    Codec<Serializable> codec = NodeCodecs.propertyValue(dictionary);
    @SuppressWarnings("JavaUtilDate") // node property values include Dates
    Serializable[] values = {
      null,
      0,
      -1,
      Integer.MIN_VALUE,
      Integer.MAX_VALUE,
      1 << 20,
      0L,
      Long.MIN_VALUE,
      Long.MAX_VALUE,
      1L << 48,
      -0.0f,
      Float.NaN,
      -0.0,
      Double.NaN,
      new java.util.Date(0),
      new java.util.Date(-1),
      new java.util.Date(86_400_000L * 3),
      "",
      "text \uD83D\uDE00",
      true,
      false,
      java.util.Locale.ROOT,
      java.util.Locale.JAPAN,
      new NodeRef(new StoreRef("a", "b"), "not-a-uuid"),
      new NodeRef(ContentModel.SPACES_STORE, "3F2504E0-4F89-11D3-9A0C-0305E82C3301"),
      new QName("", ""),
      new ContentData(null, null, -5, null, null),
      new ContentData("store://2020/01/1/1/1/x.bin", "a/b", 1, "x", java.util.Locale.CHINA),
      new ContentData(
          "store://2020/1/1/1/1/3f2504e0-4f89-11d3-9a0c-0305e82c3301.bin",
          "text/plain",
          Long.MAX_VALUE,
          "UTF-8",
          java.util.Locale.UK)
    };
    for (int pass = 0; pass < 3; pass++) {
      for (Serializable v : values) {
        ByteSink sink = new ByteSink();
        codec.encode(v, sink);
        ByteSource in = new ByteSource(sink.toByteArray());
        assertEquals(v, codec.decode(in), "value " + v);
        assertTrue(in.exhausted());
      }
    }
  }

  @Test
  void generatorIsDeterministicAndAllocatesFreshInstances() {
    Node a = generator.node(7);
    Node b = new NodeGenerator(42).node(7);
    assertEquals(a, b);
    QName nameA = a.properties().keySet().iterator().next();
    QName nameB = b.properties().keySet().stream().filter(nameA::equals).findFirst().orElseThrow();
    assertNotSame(nameA, nameB);
    assertNotSame(nameA.namespaceUri(), nameB.namespaceUri());
    assertEquals(15, a.properties().size());
    assertEquals(2, a.aspects().size());
    assertTrue(!a.equals(generator.node(8)));
  }

  private void assertRoundTrips(Codec<Node> codec, int count) {
    ByteSink sink = new ByteSink();
    for (long id = 0; id < count; id++) {
      Node node = generator.node(id);
      sink.reset();
      codec.encodeLast(node, sink);
      Node back = codec.decodeLast(new ByteSource(sink.array(), 0, sink.size()));
      assertEquals(node, back, "node " + id);
    }
  }

  private double averageSize(Codec<Node> codec, int count) {
    ByteSink sink = new ByteSink();
    long total = 0;
    for (long id = 0; id < count; id++) {
      sink.reset();
      codec.encodeLast(generator.node(id), sink);
      total += sink.size();
    }
    return (double) total / count;
  }
}
