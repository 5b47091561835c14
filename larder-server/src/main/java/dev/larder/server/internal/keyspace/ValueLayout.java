package dev.larder.server.internal.keyspace;

import java.util.Arrays;

/**
 * The bytes a keyspace value is stored as in the Larder cache (format versions 1 and 2; the
 * reference is {@code docs/spec/server-value-layout.md}).
 *
 * <pre>
 *   byte 0: tag
 *     bits 7..5  layout version (1, or 2 when an item state follows)
 *     bit  4     type, high bit
 *     bit  3     F: client flags follow
 *     bit  2     E: expiry follows
 *     bits 1..0  type, low bits (type codes: 0 string, 1 hash, 2 list, 3 set, 4 sorted set)
 *   varint      version (unsigned LEB128, 1..2^63-1)
 *   [varint]    expiry: Unix time in milliseconds, present when E
 *   [varint]    client flags (unsigned 32-bit), present when F
 *   [varint]    memcached item state, non-zero, present in version 2 only
 *   bytes       payload, to the end of the value
 * </pre>
 *
 * <p>Version 2 is version 1 with one more field: a value written without an item state is written
 * as version 1, byte for byte as before, so only memcached items that use the meta protocol's
 * stale, recache-token or access state pay for it.
 *
 * <p>A string's payload is its bytes; a hash's is {@link HashPayload}'s encoding, a list's {@link
 * ListPayload}'s, a set's {@link SetPayload}'s and a sorted set's {@link ZSetPayload}'s. Optional
 * fields cost nothing when absent, so a plain Redis string pays two or three bytes of header.
 *
 * <p>Stateless and thread-safe.
 */
public final class ValueLayout {
  /** The layout version written in the tag's top three bits. */
  public static final int VERSION = 1;

  /** The layout version of a value that carries a memcached item state. */
  public static final int VERSION_WITH_ITEM_STATE = 2;

  private static final int FLAGS_BIT = 1 << 3;

  /** The tag's bit {@code E}: an expiry follows (what the store counts as a marked value). */
  public static final int EXPIRY_BIT = 1 << 2;

  private static final int TYPE_LOW_MASK = 0b11;
  private static final int TYPE_HIGH_BIT = 1 << 4;
  private static final int VERSION_MASK = 0b111 << 5;

  private ValueLayout() {}

  /**
   * Returns its stored bytes.
   *
   * @param value the value; its version must be positive
   */
  public static byte[] encode(StoredValue value) {
    int tag = VERSION << 5 | typeBits(value.type());
    int headerSize = 1 + Varint.size(value.version());
    if (value.expiresAtMillis() != 0) {
      tag |= EXPIRY_BIT;
      headerSize += Varint.size(value.expiresAtMillis());
    }
    if (value.clientFlags() != 0) {
      tag |= FLAGS_BIT;
      headerSize += Varint.size(Integer.toUnsignedLong(value.clientFlags()));
    }
    long state = value.itemState();
    if (state != 0) {
      tag = (tag & ~VERSION_MASK) | (VERSION_WITH_ITEM_STATE << 5);
      headerSize += Varint.size(state);
    }
    byte[] out = new byte[headerSize + value.payload().length];
    out[0] = (byte) tag;
    int pos = Varint.write(out, 1, value.version());
    if ((tag & EXPIRY_BIT) != 0) {
      pos = Varint.write(out, pos, value.expiresAtMillis());
    }
    if ((tag & FLAGS_BIT) != 0) {
      pos = Varint.write(out, pos, Integer.toUnsignedLong(value.clientFlags()));
    }
    if (state != 0) {
      pos = Varint.write(out, pos, state);
    }
    System.arraycopy(value.payload(), 0, out, pos, value.payload().length);
    return out;
  }

  /**
   * Encodes a chunk's or index page's stored bytes from part of an array, as {@link #encode} does a
   * value of that type, version and payload with no expiry, no flags and no item state, without
   * building a {@link StoredValue} or a payload array first: the one copy of the payload is the one
   * into the stored bytes.
   *
   * @param type the collection's type
   * @param version its version, positive
   * @param bytes an array holding the payload
   * @param offset where the payload starts
   * @param length its length
   * @return its stored bytes
   */
  public static byte[] encodeChunk(
      ValueType type, long version, byte[] bytes, int offset, int length) {
    byte[] out = chunkWithRoom(type, version, length);
    System.arraycopy(bytes, offset, out, out.length - length, length);
    return out;
  }

  /**
   * Returns an array for a chunk's stored bytes, as {@link #encodeChunk} makes them, with the
   * header written and room for the payload after it, at {@code length - payloadLength}.
   *
   * @param type the collection's type
   * @param version its version, positive
   * @param payloadLength the payload's length, at least 0
   */
  static byte[] chunkWithRoom(ValueType type, long version, int payloadLength) {
    int headerSize = 1 + Varint.size(version);
    byte[] out = new byte[headerSize + payloadLength];
    out[0] = (byte) (VERSION << 5 | typeBits(type));
    Varint.write(out, 1, version);
    return out;
  }

  /**
   * Encodes a string with no expiry and no flags, as {@link #encode} does, without building a
   * {@link StoredValue} first: the path of a plain SET.
   *
   * @param version its version, positive
   * @param payload the string's bytes
   * @return its stored bytes
   */
  public static byte[] encodeString(long version, byte[] payload) {
    int headerSize = 1 + Varint.size(version);
    byte[] out = new byte[headerSize + payload.length];
    out[0] = (byte) (VERSION << 5 | typeBits(ValueType.STRING));
    Varint.write(out, 1, version);
    System.arraycopy(payload, 0, out, headerSize, payload.length);
    return out;
  }

  /**
   * A stored value's header: everything but the payload, which stays where it is.
   *
   * @param type the value's type
   * @param version its version (a memcached CAS unique), positive
   * @param expiresAtMillis its expiry in Unix milliseconds, 0 for none
   * @param clientFlags memcached's client flags (unsigned 32-bit)
   * @param payloadOffset where the payload starts in the stored bytes; it runs to their end
   * @param itemState memcached's item state, 0 for none
   */
  public record Header(
      ValueType type,
      long version,
      long expiresAtMillis,
      int clientFlags,
      int payloadOffset,
      long itemState) {

    /**
     * A header without memcached item state.
     *
     * @param type the value's type
     * @param version its version
     * @param expiresAtMillis its expiry, 0 for none
     * @param clientFlags memcached's client flags
     * @param payloadOffset where the payload starts
     */
    public Header(
        ValueType type, long version, long expiresAtMillis, int clientFlags, int payloadOffset) {
      this(type, version, expiresAtMillis, clientFlags, payloadOffset, 0);
    }
  }

  /**
   * Reads the header only: for writing a value out without copying it into a {@link StoredValue}
   * first (RESP GET, memcached get).
   *
   * @param bytes stored bytes
   * @return their header
   * @throws IllegalArgumentException if they are not a version-1 or version-2 value or the header
   *     is corrupt
   */
  public static Header header(byte[] bytes) {
    int layout = bytes.length == 0 ? 0 : (bytes[0] & 0xFF) >>> 5;
    if (layout != VERSION && layout != VERSION_WITH_ITEM_STATE) {
      throw new IllegalArgumentException("not a version-1 or version-2 keyspace value");
    }
    int tag = bytes[0] & 0xFF;
    long[] cursor = {1};
    long version = Varint.read(bytes, cursor);
    long expiry = (tag & EXPIRY_BIT) != 0 ? Varint.read(bytes, cursor) : 0;
    long flags = (tag & FLAGS_BIT) != 0 ? Varint.read(bytes, cursor) : 0;
    long state = layout == VERSION_WITH_ITEM_STATE ? Varint.read(bytes, cursor) : 0;
    if (flags > 0xFFFF_FFFFL || version <= 0 || (layout == VERSION_WITH_ITEM_STATE && state <= 0)) {
      throw new IllegalArgumentException("corrupt keyspace value header");
    }
    return new Header(typeOf(tag), version, expiry, (int) flags, (int) cursor[0], state);
  }

  /** The tag bits of a type's three-bit code: its high bit at bit 4, its low bits at 1..0. */
  private static int typeBits(ValueType type) {
    int code = type.code();
    return ((code & 0b100) << 2) | (code & TYPE_LOW_MASK);
  }

  private static ValueType typeOf(int tag) {
    return ValueType.ofCode(((tag & TYPE_HIGH_BIT) >>> 2) | (tag & TYPE_LOW_MASK));
  }

  /**
   * Returns the value they hold.
   *
   * @param bytes stored bytes
   * @throws IllegalArgumentException if they are not a version-1 or version-2 value
   */
  public static StoredValue decode(byte[] bytes) {
    Header h = header(bytes);
    byte[] payload = Arrays.copyOfRange(bytes, h.payloadOffset(), bytes.length);
    return new StoredValue(
        h.type(), h.version(), h.expiresAtMillis(), h.clientFlags(), payload, h.itemState());
  }

  /**
   * Returns the offset just after the version: the value without its version is byte 0 and the
   * bytes from this offset (a checkpoint stores it so).
   *
   * @param bytes stored bytes
   */
  public static int versionEnd(byte[] bytes) {
    long[] cursor = {1};
    Varint.read(bytes, cursor);
    return (int) cursor[0];
  }

  /**
   * Returns where the fields after the version start in a stored value that lies in part of an
   * array.
   *
   * @param bytes holds the stored value
   * @param offset where it starts (its tag)
   * @return the index in {@code bytes} of the first byte after the version
   */
  public static int versionEnd(byte[] bytes, int offset) {
    long[] cursor = {offset + 1};
    Varint.read(bytes, cursor);
    return (int) cursor[0];
  }

  /**
   * The inverse of dropping the version: a value's tag, then {@code version}, then the rest.
   *
   * @param unversioned a stored value without its version (tag, then the fields after it)
   * @param offset where it starts
   * @param length its length, at least 1
   * @param version the version to give it, positive
   * @return the stored bytes
   */
  public static byte[] withVersion(byte[] unversioned, int offset, int length, long version) {
    byte[] out = new byte[length + Varint.size(version)];
    out[0] = unversioned[offset];
    int pos = Varint.write(out, 1, version);
    System.arraycopy(unversioned, offset + 1, out, pos, length - 1);
    return out;
  }

  /**
   * Reads only the version, without copying the payload.
   *
   * @param bytes stored bytes
   * @return the version
   */
  public static long versionOf(byte[] bytes) {
    long[] cursor = {1};
    return Varint.read(bytes, cursor);
  }

  /**
   * Reads only the expiry of a value without its version (as a checkpoint holds it: the tag, then
   * the fields after the version).
   *
   * @param unversioned holds the value
   * @param offset where its tag is
   * @return the expiry, 0 for none
   * @throws IllegalArgumentException if the expiry's varint is truncated
   */
  public static long expiryOfUnversioned(byte[] unversioned, int offset) {
    if ((unversioned[offset] & EXPIRY_BIT) == 0) {
      return 0;
    }
    long[] cursor = {offset + 1};
    return Varint.read(unversioned, cursor);
  }

  /**
   * Reads only the expiry of a stored value that lies in part of an array.
   *
   * @param bytes holds the stored value
   * @param offset where it starts (its tag)
   * @return the expiry, 0 for none
   */
  public static long expiryOf(byte[] bytes, int offset) {
    if ((bytes[offset] & EXPIRY_BIT) == 0) {
      return 0;
    }
    long[] cursor = {offset + 1};
    Varint.read(bytes, cursor);
    return Varint.read(bytes, cursor);
  }

  /**
   * Reads only the expiry, without copying the payload.
   *
   * @param bytes stored bytes
   * @return the expiry, 0 for none
   */
  public static long expiryOf(byte[] bytes) {
    if ((bytes[0] & EXPIRY_BIT) == 0) {
      return 0;
    }
    long[] cursor = {1};
    Varint.read(bytes, cursor);
    return Varint.read(bytes, cursor);
  }
}
