package dev.larder.server.internal.cluster;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a clustered server's members tell each other about pub/sub and client-side caching: the
 * payload of larder-cluster's MESSAGE frames ({@code ClusteredCache.broadcast}). Layout, <b>server
 * message version 1</b> (docs/spec/cluster-wire.md, "Server messages"), integers little-endian:
 *
 * <pre>
 * +---------+------+----------------------------------------------+
 * | version | kind | body, by kind                                |
 * | u8 = 1  | u8   |                                              |
 * +---------+------+----------------------------------------------+
 * kind 1 PUBLISH     channel : bytes, message : bytes
 * kind 2 INVALIDATE  count : i32, then count x key : bytes
 * kind 3 FLUSH       (empty)
 * kind 4 TRACKING    u8: 1 = the sender has tracking clients, 0 = it has none
 * bytes = i32 length, then that many bytes
 * </pre>
 *
 * A decoder rejects another version, an unknown kind, a negative length or count, a count larger
 * than the bytes left could hold, and trailing bytes.
 */
public sealed interface MemberMessage {
  /** The version byte every message starts with. */
  int VERSION = 1;

  /** Returns the encoded message. */
  byte[] encode();

  /**
   * A message PUBLISH sent on the sender.
   *
   * @param channel the channel
   * @param message the message
   */
  @SuppressWarnings("ArrayRecordComponent") // a wire message, never compared
  record Publish(byte[] channel, byte[] message) implements MemberMessage {
    @Override
    public byte[] encode() {
      return encoded(
          1,
          8 + channel.length + message.length,
          b -> {
            put(b, channel);
            put(b, message);
          });
    }
  }

  /**
   * Keys that changed on the sender.
   *
   * @param keys the keys' names
   */
  record Invalidate(List<byte[]> keys) implements MemberMessage {
    @Override
    public byte[] encode() {
      int n = 4;
      for (byte[] k : keys) {
        n += 4 + k.length;
      }
      return encoded(
          2,
          n,
          b -> {
            b.putInt(keys.size());
            for (byte[] k : keys) {
              put(b, k);
            }
          });
    }
  }

  /** Every key changed on the sender (FLUSHALL, FLUSHDB). */
  record Flush() implements MemberMessage {
    @Override
    public byte[] encode() {
      return encoded(3, 0, b -> {});
    }
  }

  /**
   * Whether the sender has tracking clients.
   *
   * @param active true if it has
   */
  record TrackingState(boolean active) implements MemberMessage {
    @Override
    public byte[] encode() {
      return encoded(4, 1, b -> b.put((byte) (active ? 1 : 0)));
    }
  }

  /**
   * Decodes a message.
   *
   * @param bytes an encoded message
   * @return the message
   * @throws IllegalArgumentException if the bytes are not one message of this version
   */
  static MemberMessage decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    try {
      int version = b.get() & 0xff;
      if (version != VERSION) {
        throw new IllegalArgumentException(
            "server message version " + version + ", expected " + VERSION);
      }
      int kind = b.get() & 0xff;
      MemberMessage m =
          switch (kind) {
            case 1 -> new Publish(bytes(b), bytes(b));
            case 2 -> invalidate(b);
            case 3 -> new Flush();
            case 4 -> new TrackingState(flag(b));
            default -> throw new IllegalArgumentException("unknown server message kind " + kind);
          };
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(
            b.remaining() + " trailing bytes after a server message");
      }
      return m;
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("a server message ends early", e);
    }
  }

  private static Invalidate invalidate(ByteBuffer b) {
    int count = b.getInt();
    if (count < 0 || count > b.remaining() / 4) {
      throw new IllegalArgumentException("bad key count " + count);
    }
    List<byte[]> keys = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      keys.add(bytes(b));
    }
    return new Invalidate(keys);
  }

  private static boolean flag(ByteBuffer b) {
    int v = b.get();
    if (v != 0 && v != 1) {
      throw new IllegalArgumentException("bad tracking flag " + v);
    }
    return v == 1;
  }

  /** A message of that kind whose body of {@code body} bytes {@code fill} writes. */
  private static byte[] encoded(int kind, int body, Consumer<ByteBuffer> fill) {
    ByteBuffer b = ByteBuffer.allocate(2 + body);
    b.order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) VERSION).put((byte) kind);
    fill.accept(b);
    return b.array();
  }

  private static void put(ByteBuffer b, byte[] bytes) {
    b.putInt(bytes.length).put(bytes);
  }

  private static byte[] bytes(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0 || n > b.remaining()) {
      throw new IllegalArgumentException("bad length " + n);
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }
}
