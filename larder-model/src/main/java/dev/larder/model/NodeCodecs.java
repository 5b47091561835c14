package dev.larder.model;

import dev.larder.codec.Codec;
import dev.larder.codec.ValueDictionary;
import java.io.Serializable;

/**
 * Codecs of the content-node model, built on the public codec SPI. Wire forms are specified in
 * docs/spec/content-node.md (version {@value #WIRE_FORM_VERSION}).
 *
 * <p>Two flavours: {@link #node()} writes every value inline; {@link #node(ValueDictionary)}
 * substitutes qualified names, namespaces, store references, mimetypes, encodings, locales,
 * repeating text and node shapes (the list of a node's names) through a dictionary (spaces listed
 * in docs/spec/content-node.md), which is what makes a cached node a fraction of its object size.
 * Both decode nodes with unmodifiable collections; with a dictionary, nodes of one shape share
 * their names.
 *
 * <p>Typical use:
 *
 * <pre>{@code
 * ValueDictionary dictionary = NodeCodecs.newDictionary();
 * Cache<Long, Node> cache = Cache.builder(Codecs.longs(), NodeCodecs.node(dictionary))
 *     .maximumMemory(1L << 30).build();
 * NodeGenerator nodes = new NodeGenerator(42);
 * for (long id = 0; id < 1_000_000; id++) {
 *   cache.put(id, nodes.node(id));
 * }
 * long bytes = cache.memoryUsed() + dictionary.memoryUsed();
 * }</pre>
 *
 * <p>All codecs are thread-safe. Substituting codecs are not {@linkplain Codec#deterministic()
 * deterministic}: use them for values, not keys.
 */
public final class NodeCodecs {

  /** The version of the model's wire forms. */
  public static final int WIRE_FORM_VERSION = 2;

  private NodeCodecs() {}

  /** Returns a dictionary with bounds that suit the model: 65,536 values, 16 MiB. */
  public static ValueDictionary newDictionary() {
    return ValueDictionary.builder().build();
  }

  /** Returns nodes with every value written inline (no substitution). */
  public static Codec<Node> node() {
    return new NodeCodec(ModelForms.plain());
  }

  /**
   * Returns nodes with substitution.
   *
   * @param dictionary the dictionary to substitute through; may be shared by many codecs
   */
  public static Codec<Node> node(ValueDictionary dictionary) {
    return new NodeCodec(ModelForms.substituting(dictionary));
  }

  /** Returns qualified names, inline. */
  public static Codec<QName> qname() {
    return ModelForms.plain().name();
  }

  /**
   * Returns qualified names, always interned (for names from a schema).
   *
   * @param dictionary the dictionary
   */
  public static Codec<QName> qname(ValueDictionary dictionary) {
    return ModelForms.substituting(dictionary).name();
  }

  /** Returns node references, inline. */
  public static Codec<NodeRef> nodeRef() {
    return new NodeRefCodec(ModelForms.plain().store());
  }

  /**
   * Returns node references with their store substituted.
   *
   * @param dictionary the dictionary
   */
  public static Codec<NodeRef> nodeRef(ValueDictionary dictionary) {
    return new NodeRefCodec(ModelForms.substituting(dictionary).store());
  }

  /** Returns content data, inline. */
  public static Codec<ContentData> contentData() {
    return new ContentDataCodec(ModelForms.plain());
  }

  /**
   * Returns content data with mimetype, encoding and locale substituted.
   *
   * @param dictionary the dictionary
   */
  public static Codec<ContentData> contentData(ValueDictionary dictionary) {
    return new ContentDataCodec(ModelForms.substituting(dictionary));
  }

  /** Returns property values (the types listed in {@link Node}), inline. */
  public static Codec<Serializable> propertyValue() {
    return new PropertyValueCodec(ModelForms.plain());
  }

  /**
   * Returns property values, with substitution.
   *
   * @param dictionary the dictionary
   */
  public static Codec<Serializable> propertyValue(ValueDictionary dictionary) {
    return new PropertyValueCodec(ModelForms.substituting(dictionary));
  }
}
