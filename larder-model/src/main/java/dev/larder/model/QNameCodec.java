package dev.larder.model;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;

/**
 * A qualified name: its namespace (by the given codec, possibly substituting), then its local name.
 */
final class QNameCodec implements Codec<QName> {

  private final Codec<String> namespaces;

  QNameCodec(Codec<String> namespaces) {
    this.namespaces = namespaces;
  }

  @Override
  public void encode(QName value, ByteSink out) {
    namespaces.encode(value.namespaceUri(), out);
    Codecs.strings().encode(value.localName(), out);
  }

  @Override
  public QName decode(ByteSource in) {
    String namespace = namespaces.decode(in);
    return new QName(namespace, Codecs.strings().decode(in));
  }

  @Override
  public Class<?> type() {
    return QName.class;
  }

  @Override
  public boolean deterministic() {
    return namespaces.deterministic();
  }
}
