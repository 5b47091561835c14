package dev.larder.cluster.internal;

import dev.larder.codec.CodecException;
import java.io.IOException;
import org.jgroups.Address;
import org.jgroups.util.ByteArrayDataInputStream;
import org.jgroups.util.ByteArrayDataOutputStream;
import org.jgroups.util.Util;

/**
 * A member's address as bytes, for frames that name a member (the caller a backup acks to):
 * JGroups' own serialization of the address. Stateless and thread-safe.
 */
final class Addresses {

  private Addresses() {}

  static byte[] encode(Address address) {
    ByteArrayDataOutputStream out = new ByteArrayDataOutputStream(32);
    try {
      Util.writeAddress(address, out);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialize address " + address, e);
    }
    return out.buffer().length == out.position() ? out.buffer()
        : java.util.Arrays.copyOf(out.buffer(), out.position());
  }

  /**
   * @throws CodecException if the bytes are not an address
   */
  static Address decode(byte[] bytes) {
    if (bytes == null) {
      throw new CodecException("a frame names no member where one is required");
    }
    try {
      Address a = Util.readAddress(new ByteArrayDataInputStream(bytes));
      if (a == null) {
        throw new CodecException("a frame names no member where one is required");
      }
      return a;
    } catch (IOException | ClassNotFoundException | RuntimeException e) {
      if (e instanceof CodecException c) {
        throw c;
      }
      throw new CodecException("a frame names a member in bytes that are not an address: " + e);
    }
  }
}
