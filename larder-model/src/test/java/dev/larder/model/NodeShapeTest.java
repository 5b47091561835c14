package dev.larder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.ValueDictionary;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Node shapes: the encoder's shape prediction must never write a shape other than the node's own,
 * whatever mix of shapes one codec sees (also concurrently), and decoded nodes must behave as
 * unmodifiable maps and sets equal to the originals.
 */
class NodeShapeTest {

  private static final NodeGenerator GENERATOR = new NodeGenerator(11);

  @Test
  void mixedShapesRoundTripThroughOneCodec() {
    for (Codec<Node> codec :
        List.of(NodeCodecs.node(), NodeCodecs.node(NodeCodecs.newDictionary()))) {
      SplittableRandom random = new SplittableRandom(3);
      for (int i = 0; i < 3_000; i++) {
        Node node = variant(i, random);
        Node decoded = roundTrip(codec, node);
        assertEquals(node, decoded, "node " + i);
        assertEquals(node, roundTrip(codec, decoded), "re-encoded decoded node " + i);
      }
    }
  }

  @Test
  void concurrentEncodersWithManyShapes() {
    ValueDictionary dictionary = ValueDictionary.builder().maximumEntries(500).build();
    Codec<Node> codec = NodeCodecs.node(dictionary);
    assertTimeoutPreemptively(
        Duration.ofMinutes(2),
        () -> {
          ExecutorService pool = Executors.newFixedThreadPool(4);
          try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
              int seed = t;
              futures.add(
                  pool.submit(
                      () -> {
                        SplittableRandom random = new SplittableRandom(seed);
                        for (int i = 0; i < 2_000; i++) {
                          Node node = variant(seed * 100_000 + i, random);
                          if (!roundTrip(codec, node).equals(node)) {
                            throw new AssertionError("thread " + seed + " node " + i);
                          }
                        }
                        return null;
                      }));
            }
            for (Future<?> f : futures) {
              f.get();
            }
          } finally {
            pool.shutdownNow();
          }
        });
    assertTrue(dictionary.size("shape") > 0, "repeated shapes are interned");
  }

  @Test
  void decodedPropertiesBehaveAsAnUnmodifiableMap() {
    Node node = GENERATOR.node(1);
    Node decoded = roundTrip(NodeCodecs.node(NodeCodecs.newDictionary()), node);
    Map<QName, Serializable> properties = decoded.properties();
    Map<QName, Serializable> expected = node.properties();
    assertEquals(expected, properties);
    assertEquals(properties, expected);
    assertEquals(expected.hashCode(), properties.hashCode());
    assertEquals(expected.size(), properties.size());
    assertEquals(
        new ArrayList<>(expected.keySet()),
        new ArrayList<>(properties.keySet()),
        "iterates in the original's order");
    for (QName name : expected.keySet()) {
      QName copy = new QName(new String(name.namespaceUri()), new String(name.localName()));
      assertEquals(expected.get(name), properties.get(copy));
      assertTrue(properties.containsKey(copy));
    }
    assertNull(properties.get(new QName("urn:none", "missing")));
    Object notAName = "not a qname"; // Map.get takes any object: a key of another type is a miss
    assertNull(properties.get(notAName));
    assertNull(properties.get(null));
    assertEquals("x", properties.getOrDefault(ContentModel.AUDITABLE, "x"));
    QName any = expected.keySet().iterator().next();
    assertThrows(UnsupportedOperationException.class, () -> properties.put(any, 1));
    assertThrows(UnsupportedOperationException.class, () -> properties.remove(any));
    assertThrows(UnsupportedOperationException.class, properties::clear);
    assertThrows(
        UnsupportedOperationException.class,
        () -> properties.entrySet().iterator().next().setValue(1));
    assertThrows(UnsupportedOperationException.class, () -> properties.keySet().remove(any));
    assertThrows(UnsupportedOperationException.class, () -> decoded.aspects().add(any));
    assertEquals(node.aspects(), decoded.aspects());
    assertTrue(properties.toString().contains("created"));
  }

  @Test
  void plainDecodedNodesAreUnmodifiableToo() {
    Node node = GENERATOR.node(4);
    Node decoded = roundTrip(NodeCodecs.node(), node);
    assertEquals(node, decoded);
    assertThrows(
        UnsupportedOperationException.class,
        () -> decoded.properties().put(ContentModel.CREATED, 1));
    assertThrows(
        UnsupportedOperationException.class, () -> decoded.aspects().add(ContentModel.AUDITABLE));
  }

  @Test
  void largeShapesFindNamesThroughAnIndex() {
    Map<QName, Serializable> properties = new LinkedHashMap<>();
    for (int i = 0; i < 100; i++) {
      properties.put(new QName(ContentModel.BENCHMARK_NS, "p" + i), i % 7 == 0 ? null : "v" + i);
    }
    Node node = new Node(Set.of(), properties);
    Node decoded = roundTrip(NodeCodecs.node(NodeCodecs.newDictionary()), node);
    assertEquals(node, decoded);
    for (int i = 0; i < 100; i++) {
      QName name = new QName(ContentModel.BENCHMARK_NS, "p" + i);
      assertTrue(decoded.properties().containsKey(name), name.toString());
      assertEquals(properties.get(name), decoded.properties().get(name));
    }
    assertNull(decoded.properties().get(new QName(ContentModel.BENCHMARK_NS, "p100")));
  }

  @Test
  void decodedNodesSerializeAsPlainCollections() throws Exception {
    Node decoded = roundTrip(NodeCodecs.node(NodeCodecs.newDictionary()), GENERATOR.node(2));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(decoded);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      Node read = (Node) in.readObject();
      assertEquals(decoded, read);
      assertEquals(HashMap.class, read.properties().getClass());
    }
  }

  @Test
  void shapesNamingAPropertyTwiceAreRejected() {
    Codec<Node> codec = NodeCodecs.node();
    QName name = ContentModel.CREATED;
    Node node = new Node(Set.of(), new LinkedHashMap<>(Map.of(name, 1)));
    ByteSink sink = new ByteSink();
    codec.encode(node, sink);
    byte[] one = sink.toByteArray();
    // The plain form: aspect count 0, property count 1, the name, then the value. Rewrite the
    // count to 2 and repeat the name and the value.
    sink.reset();
    Codec<QName> names = NodeCodecs.qname();
    sink.writeVarInt(0);
    sink.writeVarInt(2);
    names.encode(name, sink);
    names.encode(name, sink);
    NodeCodecs.propertyValue().encode(1, sink);
    NodeCodecs.propertyValue().encode(2, sink);
    byte[] twice = sink.toByteArray();
    assertEquals(node, codec.decodeLast(new ByteSource(one)));
    CodecException e =
        assertThrows(CodecException.class, () -> codec.decodeLast(new ByteSource(twice)));
    assertTrue(e.getMessage().contains("twice"), e.getMessage());
  }

  @Test
  void nodesChangingWhileEncodedFailClearly() {
    Map<QName, Serializable> lying =
        new AbstractMap<>() {
          private final Map<QName, Serializable> real = GENERATOR.node(3).properties();

          @Override
          public Set<Entry<QName, Serializable>> entrySet() {
            return real.entrySet();
          }

          @Override
          public int size() {
            return real.size() + 1;
          }
        };
    Codec<Node> codec = NodeCodecs.node(NodeCodecs.newDictionary());
    CodecException e =
        assertThrows(
            CodecException.class, () -> codec.encode(new Node(Set.of(), lying), new ByteSink()));
    assertTrue(e.getMessage().contains("changed"), e.getMessage());
  }

  @Test
  void theSameShapeDecodesToSharedNames() {
    Codec<Node> codec = NodeCodecs.node(NodeCodecs.newDictionary());
    for (int i = 0; i < 3; i++) {
      roundTrip(codec, GENERATOR.node(i));
    }
    Node a = roundTrip(codec, GENERATOR.node(10));
    Node b = roundTrip(codec, GENERATOR.node(11));
    assertSame(a.aspects(), b.aspects(), "interned shapes share their aspect set");
    assertNotEquals(a, b);
  }

  /** A content node with a random subset of its properties, extra ones and aspects. */
  private static Node variant(long id, SplittableRandom random) {
    Node base = GENERATOR.node(id);
    Map<QName, Serializable> properties = new HashMap<>();
    for (Map.Entry<QName, Serializable> e : base.properties().entrySet()) {
      if (random.nextInt(4) != 0) {
        properties.put(e.getKey(), e.getValue());
      }
    }
    for (int extra = random.nextInt(3); extra > 0; extra--) {
      properties.put(
          new QName(ContentModel.BENCHMARK_NS, "extra" + random.nextInt(8)),
          random.nextBoolean() ? null : "x" + random.nextInt(4));
    }
    Set<QName> aspects = new HashSet<>();
    for (QName aspect : base.aspects()) {
      if (random.nextBoolean()) {
        aspects.add(aspect);
      }
    }
    return new Node(aspects, properties);
  }

  private static Node roundTrip(Codec<Node> codec, Node node) {
    ByteSink sink = new ByteSink();
    codec.encodeLast(node, sink);
    return codec.decodeLast(new ByteSource(sink.array(), 0, sink.size()));
  }
}
