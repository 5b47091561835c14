package dev.larder.model;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.io.Serializable;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A node: varint aspect count, the aspect names; varint property count, then each property's
 * name and value ({@link PropertyValueCodec}). Decodes to a {@link HashSet} and a
 * {@link HashMap} sized for their content.
 */
final class NodeCodec implements Codec<Node> {

  private final Codec<QName> names;
  private final Codec<Serializable> values;

  NodeCodec(ModelForms forms) {
    this.names = forms.name();
    this.values = new PropertyValueCodec(forms);
  }

  @Override
  public void encode(Node node, ByteSink out) {
    Set<QName> aspects = node.aspects();
    out.writeVarInt(aspects.size());
    for (QName aspect : aspects) {
      names.encode(aspect, out);
    }
    Map<QName, Serializable> properties = node.properties();
    out.writeVarInt(properties.size());
    int written = 0;
    for (Map.Entry<QName, Serializable> e : properties.entrySet()) {
      names.encode(e.getKey(), out);
      values.encode(e.getValue(), out);
      written++;
    }
    if (written != properties.size()) {
      throw new CodecException("node properties changed while being encoded");
    }
  }

  @Override
  public Node decode(ByteSource in) {
    int aspectCount = in.readLength(1);
    Set<QName> aspects = HashSet.newHashSet(aspectCount);
    for (int i = 0; i < aspectCount; i++) {
      aspects.add(names.decode(in));
    }
    int propertyCount = in.readLength(2);
    Map<QName, Serializable> properties = HashMap.newHashMap(propertyCount);
    for (int i = 0; i < propertyCount; i++) {
      QName name = names.decode(in);
      properties.put(name, values.decode(in));
    }
    return new Node(aspects, properties);
  }

  @Override
  public Class<?> type() {
    return Node.class;
  }

  @Override
  public boolean deterministic() {
    return false;
  }
}
