package dev.larder.server.internal.keyspace;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * The serialized value of DUMP and RESTORE (format version 1; the reference is {@code
 * docs/spec/server-dump-payload.md}).
 *
 * <pre>
 *   byte 0      magic 0x4C ('L')
 *   byte 1      format version (1)
 *   byte 2      type code (ValueType: 0 string, 1 hash, 2 list, 3 set, 4 sorted set)
 *   bytes       the value layout's packed payload for that type, in its canonical form
 *   4 bytes     CRC-32C of every byte before it, big-endian
 * </pre>
 *
 * <p>The payload is the packed payload a writer builds from the value's contents: for a string, a
 * hash and a list the stored one unchanged (a chunked collection is read whole first, by the
 * keyspace); a set's or sorted set's is encoded afresh ({@link SetPayload#encode}, {@link
 * ZSetPayload#encodeWide}: never the compact scores of sorted-set encoding 4, which this format
 * predates; {@link #decode} stores the set as a writer would), because a stored one may keep an
 * encoding its history chose (a TABLE's heap in insertion order, an INTSET's width after removals),
 * and a payload must say one value one way for RESTORE to check it exactly. The expiry is not in
 * the payload (RESTORE takes it as an argument, as Redis's does), nor the version (a restored value
 * gets a fresh one), nor memcached's client flags.
 *
 * <p>{@link #decode} accepts exactly the payloads {@link #encode} writes: a wrong magic, version,
 * length or checksum is {@link Verdict#CORRUPT}; a sound frame whose type Larder does not know, or
 * whose payload is not that type's canonical encoding, is {@link Verdict#BAD_FORMAT}. A decoded
 * value is therefore safe for every command to read.
 *
 * <p>Stateless and thread-safe.
 */
public final class DumpPayload {
  /** The format version, byte 1. */
  public static final int VERSION = 1;

  private static final int MAGIC = 0x4C;
  private static final int HEADER = 3;
  private static final int TRAILER = 4;

  private DumpPayload() {}

  /** Why a payload was refused. */
  public enum Verdict {
    /** Sound: decoded. */
    OK,
    /** Not one of ours, another version, cut or damaged: Redis's "version or checksum" error. */
    CORRUPT,
    /** Checksum right, content not a valid value: Redis's "Bad data format". */
    BAD_FORMAT
  }

  /**
   * Returns the payload of a value.
   *
   * @param value a live value of any type
   */
  public static byte[] encode(StoredValue value) {
    byte[] p = canonical(value.type(), value.payload());
    byte[] out = new byte[HEADER + p.length + TRAILER];
    out[0] = MAGIC;
    out[1] = VERSION;
    out[2] = (byte) value.type().code();
    System.arraycopy(p, 0, out, HEADER, p.length);
    int crc = crc(out, out.length - TRAILER);
    int at = out.length - TRAILER;
    out[at] = (byte) (crc >>> 24);
    out[at + 1] = (byte) (crc >>> 16);
    out[at + 2] = (byte) (crc >>> 8);
    out[at + 3] = (byte) crc;
    return out;
  }

  /**
   * Returns what a payload is worth: {@link Verdict#OK} only if {@link #decode} will accept it.
   *
   * @param bytes any bytes
   */
  public static Verdict check(byte[] bytes) {
    if (bytes.length < HEADER + TRAILER || bytes[0] != MAGIC || bytes[1] != VERSION) {
      return Verdict.CORRUPT;
    }
    int at = bytes.length - TRAILER;
    int stored =
        ((bytes[at] & 0xFF) << 24)
            | ((bytes[at + 1] & 0xFF) << 16)
            | ((bytes[at + 2] & 0xFF) << 8)
            | (bytes[at + 3] & 0xFF);
    if (stored != crc(bytes, at)) {
      return Verdict.CORRUPT;
    }
    return wellFormed(bytes[2] & 0xFF, Arrays.copyOfRange(bytes, HEADER, at))
        ? Verdict.OK
        : Verdict.BAD_FORMAT;
  }

  /**
   * Returns the value a payload holds, with no expiry, no flags and no version yet.
   *
   * @param bytes a payload
   * @throws IllegalArgumentException unless {@link #check} says {@link Verdict#OK}
   */
  public static StoredValue decode(byte[] bytes) {
    if (check(bytes) != Verdict.OK) {
      throw new IllegalArgumentException("not a sound DUMP payload");
    }
    byte[] payload = Arrays.copyOfRange(bytes, HEADER, bytes.length - TRAILER);
    ValueType type = ValueType.ofCode(bytes[2] & 0xFF);
    if (type == ValueType.ZSET) {
      // stored as a writer stores it: compact integer scores where that is smaller
      payload = ZSetPayload.encode(ZSetPayload.entries(payload));
    }
    return new StoredValue(type, 0, 0, 0, payload);
  }

  /**
   * Whether the payload is the canonical encoding of a value of that type. A type this check does
   * not know is refused, so that no value a command could not read gets in.
   */
  private static boolean wellFormed(int code, byte[] payload) {
    ValueType type;
    try {
      type = ValueType.ofCode(code);
    } catch (IllegalArgumentException e) {
      return false;
    }
    try {
      return switch (type) {
        case STRING -> true;
        case HASH -> wellFormedHash(payload);
        case LIST ->
            payload.length > 0 && payload[0] == ListPayload.PACKED && canonicalIs(type, payload);
        case SET -> canonicalIs(type, payload);
        case ZSET -> wellFormedZSet(payload);
      };
    } catch (RuntimeException e) {
      // Whatever a decoder makes of damaged bytes, a payload it cannot read is a bad format: a
      // client's bytes must never fail the command otherwise.
      return false;
    }
  }

  /**
   * The payload a DUMP carries for a stored payload of a type: the canonical packed encoding of its
   * contents (see the class notes).
   */
  private static byte[] canonical(ValueType type, byte[] payload) {
    return switch (type) {
      case SET -> SetPayload.encode(SetPayload.members(payload));
      case ZSET -> ZSetPayload.encodeWide(ZSetPayload.entries(payload));
      default -> payload;
    };
  }

  /**
   * Whether a payload decodes, holds something (an empty collection is never stored), and is the
   * canonical encoding of what it holds: no duplicate, no member out of order, no trailing byte, no
   * overlong varint, no encoding a writer would not choose for those contents, and no chunked head
   * (whose chunks a payload cannot carry).
   */
  private static boolean canonicalIs(ValueType type, byte[] payload) {
    byte[] again =
        switch (type) {
          case LIST -> ListPayload.encode(ListPayload.decode(payload));
          case SET -> {
            List<byte[]> members = SetPayload.members(payload);
            yield members.isEmpty() ? null : SetPayload.encode(members);
          }
          default -> throw new IllegalArgumentException("not a packed collection type: " + type);
        };
    return again != null && Arrays.equals(again, payload);
  }

  /**
   * A sorted set's check: as {@link #canonicalIs}, and its entries strictly in Redis's order with
   * no NaN score and no member twice (the encoder sorts what it is given, so it would write a
   * duplicate member or a NaN back as it came).
   */
  private static boolean wellFormedZSet(byte[] payload) {
    List<ZSetPayload.Entry> entries = ZSetPayload.entries(payload);
    if (entries.isEmpty()) {
      return false;
    }
    Set<ByteBuffer> members = new HashSet<>();
    ZSetPayload.Entry previous = null;
    for (ZSetPayload.Entry e : entries) {
      if (Double.isNaN(e.score())
          || !members.add(ByteBuffer.wrap(e.member()))
          || (previous != null && ZSetPayload.ORDER.compare(previous, e) >= 0)) {
        return false;
      }
      previous = e;
    }
    return Arrays.equals(ZSetPayload.encodeWide(entries), payload);
  }

  private static boolean wellFormedHash(byte[] payload) {
    try {
      var fields = HashPayload.decode(payload);
      // Re-encoding gives the same bytes only without duplicate fields, trailing bytes or
      // overlong varints; an empty hash is never stored.
      return !fields.isEmpty() && Arrays.equals(HashPayload.encode(fields), payload);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static int crc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }
}
