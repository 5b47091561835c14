package dev.larder.model;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;

/** A store reference: protocol, then identifier, as strings. */
final class StoreRefCodec implements Codec<StoreRef> {

  @Override
  public void encode(StoreRef value, ByteSink out) {
    Codecs.strings().encode(value.protocol(), out);
    Codecs.strings().encode(value.identifier(), out);
  }

  @Override
  public StoreRef decode(ByteSource in) {
    String protocol = Codecs.strings().decode(in);
    return new StoreRef(protocol, Codecs.strings().decode(in));
  }

  @Override
  public Class<?> type() {
    return StoreRef.class;
  }
}
