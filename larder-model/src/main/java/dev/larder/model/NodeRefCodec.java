package dev.larder.model;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.Codecs;
import java.util.UUID;

/**
 * A node reference: the store (by the given codec), then a form byte: 0 and 16 bytes when the id is
 * a canonical UUID string, 1 and a string otherwise.
 */
final class NodeRefCodec implements Codec<NodeRef> {

  private final Codec<StoreRef> stores;

  NodeRefCodec(Codec<StoreRef> stores) {
    this.stores = stores;
  }

  @Override
  public void encode(NodeRef value, ByteSink out) {
    stores.encode(value.storeRef(), out);
    UUID uuid = Uuids.parseCanonical(value.id());
    if (uuid != null) {
      out.writeByte(0);
      out.writeLong(uuid.getMostSignificantBits());
      out.writeLong(uuid.getLeastSignificantBits());
    } else {
      out.writeByte(1);
      Codecs.strings().encode(value.id(), out);
    }
  }

  @Override
  public NodeRef decode(ByteSource in) {
    StoreRef store = stores.decode(in);
    int form = in.readUnsignedByte();
    return switch (form) {
      case 0 -> new NodeRef(store, new UUID(in.readLong(), in.readLong()).toString());
      case 1 -> new NodeRef(store, Codecs.strings().decode(in));
      default -> throw new CodecException("unknown node reference form " + form);
    };
  }

  @Override
  public Class<?> type() {
    return NodeRef.class;
  }

  @Override
  public boolean deterministic() {
    return stores.deterministic();
  }
}
