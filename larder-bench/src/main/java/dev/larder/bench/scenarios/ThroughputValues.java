package dev.larder.bench.scenarios;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import dev.larder.model.Node;
import dev.larder.model.NodeCodecs;
import dev.larder.model.NodeGenerator;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The value types of {@code ./larder bench throughput} ({@code -P values=}): what a cache holds
 * under each String key, and how a write makes a new one.
 *
 * <ul>
 *   <li>{@code bytes}: a fresh 1 KiB {@code byte[]} of random bytes a write ({@link
 *       Codecs#bytes()}); Larder can never share these between readers.
 *   <li>{@code string}: a fresh 1 KiB String of random ASCII letters a write ({@link
 *       Codecs#strings()}).
 *   <li>{@code record}: a content node of larder-model, encoded with value substitution ({@link
 *       NodeCodecs#node(ValueDictionary)}, one dictionary per Larder cache, counted in its memory).
 *       A write picks one of {@value #NODE_POOL} nodes generated up front: making a node costs more
 *       than any cache's write, and would hide the caches' differences.
 * </ul>
 *
 * Object caches (Caffeine) hold the very objects given; stores of bytes encode them.
 */
enum ThroughputValues {
  BYTES("bytes", byte[].class),
  STRING("string", String.class),
  RECORD("record", Node.class);

  /** The length of byte[] and String values. */
  static final int VALUE_BYTES = 1024;

  /** Nodes generated up front for the record values' writes. */
  static final int NODE_POOL = 4_096;

  private final String label;
  private final Class<?> type;

  @SuppressWarnings("ImmutableEnumChecker") // the record pool, made on first use and then shared
  private volatile Node[] nodes;

  ThroughputValues(String label, Class<?> type) {
    this.label = label;
    this.type = type;
  }

  /** Returns the name in {@code -P values=} and in the rows' {@code values} field. */
  String label() {
    return label;
  }

  /** Returns the value class. */
  @SuppressWarnings("unchecked")
  <V> Class<V> type() {
    return (Class<V>) type;
  }

  /**
   * Returns the codec stores of bytes encode values with.
   *
   * @param dictionary the dictionary a record codec substitutes through
   */
  @SuppressWarnings("unchecked")
  <V> Codec<V> codec(ValueDictionary dictionary) {
    return (Codec<V>)
        switch (this) {
          case BYTES -> Codecs.bytes();
          case STRING -> Codecs.strings();
          case RECORD -> NodeCodecs.node(dictionary);
        };
  }

  /** Returns whether a cache of these values needs a dictionary of its own. */
  boolean substitutes() {
    return this == RECORD;
  }

  /** Returns a typical encoded size, the peers' sizing hint. */
  int averageEncodedBytes() {
    return this == RECORD ? 180 : VALUE_BYTES;
  }

  /**
   * Returns a new value (for records, one of the pool).
   *
   * @param random the writer's source
   */
  // V is the caller's cache value type, which this constant's values are.
  @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
  <V> V next(SplittableRandom random) {
    return (V)
        switch (this) {
          case BYTES -> Keys.value(random, VALUE_BYTES);
          case STRING -> string(random);
          case RECORD -> pool()[random.nextInt(NODE_POOL)];
        };
  }

  /**
   * Returns the value stored for a key when the cache is filled.
   *
   * @param random the fill's source
   * @param id the key's index, which a record's node is generated from
   */
  // V is the caller's cache value type, which this constant's values are.
  @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
  <V> V fill(SplittableRandom random, long id) {
    return this == RECORD ? (V) FillNodes.GENERATOR.node(id) : next(random);
  }

  /** The generator of the nodes a cache is filled with, made on first use. */
  private static final class FillNodes {
    static final NodeGenerator GENERATOR = new NodeGenerator(7);
  }

  private Node[] pool() {
    Node[] pool = nodes;
    if (pool == null) {
      NodeGenerator generator = new NodeGenerator(11);
      pool = new Node[NODE_POOL];
      for (int i = 0; i < NODE_POOL; i++) {
        pool[i] = generator.node(10_000_000L + i);
      }
      nodes = pool;
    }
    return pool;
  }

  private static String string(SplittableRandom random) {
    byte[] letters = new byte[VALUE_BYTES];
    for (int i = 0; i < letters.length; i++) {
      letters[i] = (byte) ('a' + random.nextInt(26));
    }
    return new String(letters, StandardCharsets.ISO_8859_1);
  }

  /**
   * Returns its value type.
   *
   * @param label a {@code -P values=} name
   */
  static ThroughputValues of(String label) {
    for (ThroughputValues v : values()) {
      if (v.label.equals(label)) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown values " + label);
  }
}
