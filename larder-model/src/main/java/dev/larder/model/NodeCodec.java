package dev.larder.model;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.io.Serializable;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * A node: its {@link NodeShape} (the aspect names, then the property names in iteration order),
 * then each property's value ({@link PropertyValueCodec}) in the shape's order. Decodes to
 * unmodifiable collections: with a dictionary, the shape's aspect set and a {@link
 * ShapedProperties}; without one, wrapped hash tables.
 *
 * <p>Implementation notes: looking up a node's 17 names in the dictionary used to be half the cost
 * of encoding it. Nodes of one type iterate their names in the same order, so the codec remembers
 * the last shape seen per (aspect count, property count) and compares the node's names with it in
 * order: one equality test per name and a single dictionary lookup by the shape's cached hash. A
 * misprediction costs one extra pass over the node's names. The memory of recent shapes is a plain
 * array written without synchronization: shapes are immutable, and a lost or stale write only costs
 * a misprediction.
 */
final class NodeCodec implements Codec<Node> {

  private static final int RECENT_SHAPES = 16;

  private final Codec<NodeShape> shapes;

  /** The shape codec when it writes every shape inline (no dictionary), else null. */
  private final NodeShapeCodec inlineShapes;

  private final PropertyValueCodec values;
  private final NodeShape[] recent = new NodeShape[RECENT_SHAPES];

  NodeCodec(ModelForms forms) {
    this.shapes = forms.shape();
    this.inlineShapes = shapes instanceof NodeShapeCodec inline ? inline : null;
    this.values = new PropertyValueCodec(forms);
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // the decoded shape's own set: the node is as decoded
  public void encode(Node node, ByteSink out) {
    Set<QName> aspects = node.aspects();
    Map<QName, Serializable> properties = node.properties();
    if (properties instanceof ShapedProperties decoded && aspects == decoded.shape().aspectSet()) {
      encodeDecoded(decoded, out);
      return;
    }
    int slot = (aspects.size() * 31 + properties.size()) & (RECENT_SHAPES - 1);
    NodeShape predicted = inlineShapes == null ? recent[slot] : null;
    Walk walk = new Walk(predicted, properties.size());
    QName[] aspectNames = walk.aspects(aspects);
    properties.forEach(walk);
    Object[] propertyValues = walk.finish();
    if (inlineShapes != null) {
      // Nothing to predict: without a dictionary every shape is written out in full.
      inlineShapes.write(aspectNames, walk.names, out);
    } else if (aspectNames == null && walk.names == null) {
      shapes.encode(predicted, out);
    } else {
      NodeShape shape =
          new NodeShape(
              aspectNames != null ? aspectNames : walk.prefixOf(predicted.aspectCount(), true),
              walk.names != null ? walk.names : walk.prefixOf(walk.count, false));
      int start = out.size();
      shapes.encode(shape, out);
      // Remember the shape as the dictionary holds it (decoding an id returns that instance),
      // so that the next lookup of it ends at an identity comparison.
      recent[slot] = shapes.decode(new ByteSource(out.array(), start, out.size() - start));
    }
    for (Object value : propertyValues) {
      values.encodeValue(value, out);
    }
  }

  /** A node as this codec decoded it: its shape is known. */
  private void encodeDecoded(ShapedProperties properties, ByteSink out) {
    shapes.encode(properties.shape(), out);
    for (int i = 0; i < properties.size(); i++) {
      values.encodeValue(properties.value(i), out);
    }
  }

  /**
   * One pass over a node's names: compares them with a predicted shape and collects the values.
   * Names are only copied once they depart from the prediction.
   */
  private static final class Walk implements BiConsumer<Object, Object> {
    private final NodeShape predicted;
    private final Object[] values;
    private QName[] names;
    private int count;

    Walk(NodeShape predicted, int size) {
      this.predicted = predicted;
      this.values = new Object[size];
    }

    /** Returns null if the aspects are the predicted ones, else their names. */
    QName[] aspects(Set<QName> aspects) {
      boolean same = predicted != null && predicted.aspectCount() == aspects.size();
      QName[] read = same ? null : new QName[aspects.size()];
      int i = 0;
      for (QName aspect : aspects) {
        if (i == (read != null ? read.length : predicted.aspectCount())) {
          throw changed();
        }
        if (read == null && !sameName(aspect, predicted.aspect(i))) {
          read = prefix(predicted, i, aspects.size(), true);
        }
        if (read != null) {
          read[i] = aspect;
        }
        i++;
      }
      if (i != aspects.size()) {
        throw changed();
      }
      return read;
    }

    @Override
    public void accept(Object key, Object value) {
      // Object parameters: no bridge method casting the value to the Serializable interface.
      QName name = (QName) key;
      int i = count;
      if (i == values.length) {
        throw changed();
      }
      if (names == null
          && (predicted == null
              || i >= predicted.nameCount()
              || !sameName(name, predicted.name(i)))) {
        names = prefix(predicted, i, values.length, false);
      }
      if (names != null) {
        names[i] = name;
      }
      values[i] = value;
      count = i + 1;
    }

    Object[] finish() {
      if (count != values.length) {
        throw changed();
      }
      if (names == null && (predicted == null || predicted.nameCount() != count)) {
        names = prefix(predicted, count, count, false);
      }
      return values;
    }

    /** The predicted names, for a node whose aspects differ but whose names do not. */
    QName[] prefixOf(int n, boolean aspectList) {
      return prefix(predicted, n, n, aspectList);
    }

    private static QName[] prefix(NodeShape shape, int n, int length, boolean aspectList) {
      QName[] copy = new QName[length];
      for (int j = 0; j < n; j++) {
        copy[j] = aspectList ? shape.aspect(j) : shape.name(j);
      }
      return copy;
    }

    @SuppressWarnings("ReferenceEquality") // identity first: names are mostly shared
    private static boolean sameName(QName a, QName b) {
      return a == b
          || (a.localName().equals(b.localName()) && a.namespaceUri().equals(b.namespaceUri()));
    }

    private static CodecException changed() {
      return new CodecException("node changed while being encoded");
    }
  }

  @Override
  public Node decode(ByteSource in) {
    if (inlineShapes != null) {
      return decodeInline(in);
    }
    NodeShape shape = shapes.decode(in);
    Object[] read = new Object[shape.nameCount()];
    for (int i = 0; i < read.length; i++) {
      read[i] = values.decode(in);
    }
    return new Node(shape.aspectSet(), new ShapedProperties(shape, read));
  }

  /**
   * Without a dictionary, every node carries its names, so there is no shared shape to point at;
   * hash tables are then the cheaper thing to build.
   */
  private Node decodeInline(ByteSource in) {
    QName[] aspectNames = inlineShapes.readNames(in);
    QName[] names = inlineShapes.readNames(in);
    Set<QName> aspects = HashSet.newHashSet(aspectNames.length);
    Collections.addAll(aspects, aspectNames);
    Map<QName, Serializable> properties = HashMap.newHashMap(names.length);
    for (QName name : names) {
      properties.put(name, values.decode(in));
    }
    if (aspects.size() != aspectNames.length || properties.size() != names.length) {
      throw NodeShapeCodec.repeatedName();
    }
    return new Node(Collections.unmodifiableSet(aspects), Collections.unmodifiableMap(properties));
  }

  @Override
  public Class<?> type() {
    return Node.class;
  }

  @Override
  public boolean deterministic() {
    return false;
  }

  /**
   * Decoded nodes hold unmodifiable collections and frozen dates, and every other value they hold
   * is immutable: a cache may share one decoded node between readers.
   */
  @Override
  public boolean immutable() {
    return true;
  }
}
