package dev.larder.model;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;

/**
 * A node shape: varint aspect count, the aspect names; varint property count, the property names;
 * each name by the given codec (substituting or not).
 */
final class NodeShapeCodec implements Codec<NodeShape> {

  private final Codec<QName> names;

  NodeShapeCodec(Codec<QName> names) {
    this.names = names;
  }

  @Override
  public void encode(NodeShape shape, ByteSink out) {
    out.writeVarInt(shape.aspectCount());
    for (int i = 0; i < shape.aspectCount(); i++) {
      names.encode(shape.aspect(i), out);
    }
    out.writeVarInt(shape.nameCount());
    for (int i = 0; i < shape.nameCount(); i++) {
      names.encode(shape.name(i), out);
    }
  }

  /** Writes the shape of these names, as {@link #encode} would, without building it. */
  void write(QName[] aspects, QName[] propertyNames, ByteSink out) {
    out.writeVarInt(aspects.length);
    for (QName aspect : aspects) {
      names.encode(aspect, out);
    }
    out.writeVarInt(propertyNames.length);
    for (QName name : propertyNames) {
      names.encode(name, out);
    }
  }

  @Override
  public NodeShape decode(ByteSource in) {
    QName[] aspects = readNames(in);
    NodeShape shape = new NodeShape(aspects, readNames(in));
    if (shape.aspectSet().size() != aspects.length || !shape.hasDistinctNames()) {
      throw repeatedName();
    }
    return shape;
  }

  static CodecException repeatedName() {
    return new CodecException("node shape names an aspect or a property twice");
  }

  /** Returns a count and that many names, as {@link #write} writes each half of a shape. */
  QName[] readNames(ByteSource in) {
    // Every name takes at least one byte, which bounds the array by the input.
    QName[] read = new QName[in.readLength(1)];
    for (int i = 0; i < read.length; i++) {
      read[i] = names.decode(in);
    }
    return read;
  }

  @Override
  public Class<?> type() {
    return NodeShape.class;
  }

  @Override
  public boolean deterministic() {
    return names.deterministic();
  }
}
