package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.List;

/**
 * How a range-chunked collection's packed payloads hold their entries ({@link RangeBody}): a set's
 * ({@link SetPayload}, entries are members with no value) or a hash's ({@link HashPayload}, fields
 * with their values). One payload is a packed collection or one chunk.
 *
 * <p>Stateless and thread-safe. A payload argument is a well-formed payload of the codec's type; a
 * malformed one throws {@link IllegalArgumentException}.
 */
sealed interface RangeCodec permits RangeCodec.Members, RangeCodec.Fields {
  /** The value every set member has. */
  byte[] NO_VALUE = new byte[0];

  /**
   * Returns the codec of a type with a range-chunked form.
   *
   * @param type set or hash
   * @param chunk for a chunk's payloads (a set's integers stay an INTSET whatever their count: a
   *     chunk's size bounds them), else for a packed collection's (Redis's 512 at most)
   */
  static RangeCodec of(ValueType type, boolean chunk) {
    return switch (type) {
      case SET -> chunk ? Members.CHUNK : Members.PACKED;
      case HASH -> Fields.INSTANCE;
      default -> throw new IllegalArgumentException("no range-chunked form for " + type);
    };
  }

  /** Returns how many entries a payload holds. */
  int count(byte[] p);

  /** Returns the value of the entry with that key, or null if there is none. */
  byte[] get(byte[] p, byte[] key);

  /**
   * Returns the payload with the entry set, or null if that changes nothing (a set's member already
   * there); a hash's field set to the value it holds gives {@code p} itself (a change of the key,
   * as Redis counts it, that leaves the bytes as they are).
   *
   * @param p a payload, or null for an empty one
   */
  byte[] put(byte[] p, byte[] key, byte[] value);

  /** Returns the payload without the entry (empty when it was the last), or null if absent. */
  byte[] remove(byte[] p, byte[] key);

  /** Returns the entry at a position of {@link #entries}'s order, {@code {key, value}}. */
  byte[][] entryAt(byte[] p, int i);

  /** Returns every entry in the payload's order, each {@code {key, value}}. */
  List<byte[][]> entries(byte[] p);

  /** Returns the payload of these entries (distinct keys). */
  byte[] encode(List<byte[][]> entries);

  /** A set's members, with no value. */
  final class Members implements RangeCodec {
    static final Members PACKED = new Members(SetPayload.INTSET_MAX);
    static final Members CHUNK = new Members(Integer.MAX_VALUE);

    /** The most members an INTSET holds. */
    private final int intsetMax;

    private Members(int intsetMax) {
      this.intsetMax = intsetMax;
    }

    @Override
    public int count(byte[] p) {
      return SetPayload.size(p);
    }

    @Override
    public byte[] get(byte[] p, byte[] key) {
      return SetPayload.contains(p, key) ? NO_VALUE : null;
    }

    @Override
    public byte[] put(byte[] p, byte[] key, byte[] value) {
      return SetPayload.add(p, key, intsetMax);
    }

    @Override
    public byte[] remove(byte[] p, byte[] key) {
      return SetPayload.remove(p, key);
    }

    @Override
    public byte[][] entryAt(byte[] p, int i) {
      return new byte[][] {SetPayload.member(p, i), NO_VALUE};
    }

    @Override
    public List<byte[][]> entries(byte[] p) {
      List<byte[][]> out = new ArrayList<>();
      for (byte[] m : SetPayload.members(p)) {
        out.add(new byte[][] {m, NO_VALUE});
      }
      return out;
    }

    @Override
    public byte[] encode(List<byte[][]> entries) {
      List<byte[]> members = new ArrayList<>(entries.size());
      for (byte[][] e : entries) {
        members.add(e[0]);
      }
      return SetPayload.encode(members, intsetMax);
    }
  }

  /** A hash's fields and values, in insertion order. */
  final class Fields implements RangeCodec {
    static final Fields INSTANCE = new Fields();

    private Fields() {}

    @Override
    public int count(byte[] p) {
      return HashPayload.count(p);
    }

    @Override
    public byte[] get(byte[] p, byte[] key) {
      return HashPayload.get(p, key);
    }

    @Override
    public byte[] put(byte[] p, byte[] key, byte[] value) {
      return HashPayload.put(p, key, value);
    }

    @Override
    public byte[] remove(byte[] p, byte[] key) {
      return HashPayload.remove(p, key);
    }

    @Override
    public byte[][] entryAt(byte[] p, int i) {
      return HashPayload.entries(p).get(i);
    }

    @Override
    public List<byte[][]> entries(byte[] p) {
      return HashPayload.entries(p);
    }

    @Override
    public byte[] encode(List<byte[][]> entries) {
      return HashPayload.encodeEntries(entries);
    }
  }
}
