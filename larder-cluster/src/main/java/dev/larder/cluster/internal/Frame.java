package dev.larder.cluster.internal;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.CodecException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One message of the cluster protocol, and its wire form (docs/spec/cluster-wire.md, version 4).
 *
 * <pre>
 * +---------+------+--------+--------+----+-------+-----+-------+----------+------+-------+---------+
 * | version | type | reqId  | viewId | op | flags | key | value | expected | ints | names | entries |
 * | u8 = 3  | u8   | i64 LE | i64 LE | u8 | u8    | bytes (each: i32 LE length, -1 = absent, then bytes)|
 * +---------+------+--------+--------+----+-------+-----+-------+----------+------+-------+---------+
 * ints:    i32 count, then count x i32          names:   i32 count, then count x bytes (UTF-8)
 * entries: i32 count, then count x (key bytes, value bytes)
 * </pre>
 *
 * Every frame has every field; a type leaves the fields it does not use empty. Keys and values are
 * the bytes the store holds (the user's codecs ran once, at the API edge of the member that took
 * the call); nothing is decoded on the way.
 *
 * @param type one of the {@code T_*} constants
 * @param reqId the request this frame starts or answers; 0 when no answer is wanted
 * @param viewId the JGroups view id the sender acted in
 * @param op an {@link Op} ordinal for writes, a {@code S_*} status for replies
 * @param flags {@code F_*} bits
 * @param key a key, or null
 * @param value a value (or a reply's payload), or null
 * @param expected the expected current value of a conditional write; on a last STATE chunk, the
 *     segments the source is still receiving itself (i32 LE each); or null
 * @param ints segment numbers (pull, state) or small counters
 * @param names member names (a timeout's unanswered members)
 * @param entries alternating keys and values (state transfer, iteration)
 */
@SuppressWarnings("ArrayRecordComponent") // a wire frame, never compared; arrays not copied
record Frame(
    int type,
    long reqId,
    long viewId,
    int op,
    int flags,
    byte[] key,
    byte[] value,
    byte[] expected,
    int[] ints,
    List<String> names,
    List<byte[]> entries) {

  static final int VERSION = 4;

  /** A write sent to the key's primary. */
  static final int T_WRITE = 1;

  /** A write the primary applied, sent to each backup (regular, ordered per sender). */
  static final int T_BACKUP = 2;

  /** An answer to any request with a reqId. */
  static final int T_REPLY = 3;

  /** A read sent to an owner. */
  static final int T_READ = 4;

  /** Invalidation mode: drop this key (or every key, when key is null). */
  static final int T_INVALIDATE = 5;

  /**
   * Ask for the entries of some segments (state transfer): ints = the segments, value = for each,
   * the view since which the sender receives its writes (i64 LE).
   */
  static final int T_PULL = 6;

  /** A chunk of segment entries (state transfer); the last has F_LAST. */
  static final int T_STATE = 7;

  /** Drop every entry on the receiver (invalidateAll). */
  static final int T_CLEAR = 8;

  /** Count, or list, the entries of the segments the receiver is primary of. */
  static final int T_SCAN = 9;

  /** Drop the near copy of this key: the primary wrote it (distributed mode, near caches). */
  static final int T_NEAR_INVALIDATE = 10;

  /** Value dictionary replication; flags = a {@code DictionarySync.OP_*}. */
  static final int T_DICT = 11;

  /** The sender is closing: drop it from the stable members (quorum partition handling). */
  static final int T_LEAVE = 12;

  /**
   * Has the receiver settled which member's store its cluster started from (durable members, see
   * {@link Formation})? Answered S_OK (settled: value = its generation, each segment's seed and
   * each segment's pending epoch, names = the seeds and the view it settled in) or
   * S_NOT_AUTHORITATIVE (still forming: value = the epochs its journal recovered).
   */
  static final int T_EPOCH = 13;

  /**
   * A durable member holds some segments complete (ints) in a view, sent to every other member: a
   * receiver drops a RETIRED copy of one, and stops holding it pending, once every owner of it in
   * the view said so (no reply).
   */
  static final int T_HELD = 14;

  /**
   * An application's own message to every other member (value = its bytes; {@link
   * MemberMessaging}): regular, so in the sender's order; answered S_OK once handed to the
   * receiver, if the sender waits.
   */
  static final int T_MESSAGE = 15;

  /**
   * The operator gives up the records the receiver's waiting segments wait for ({@link
   * WaitingSegments}): answered S_OK with ints = the segments it starts empty.
   */
  static final int T_ABANDON = 16;

  /**
   * The sender installed a view (viewId = its number, names = [its creator, {@link
   * ViewConfirmations#creatorOf}]); value = the number of the last view the sender was available
   * in, i64 LE ({@link Quorum}; no reply).
   */
  static final int T_INSTALLED = 17;

  /**
   * Backup writes that want no answer, from the primary to one backup (regular, ordered per sender,
   * reqId 0): entries = (key, new stored value or absent for a removal) per write, in the order the
   * primary applied them, all in the frame's view; ints as a BACKUP's. No reply (version 4).
   */
  static final int T_BACKUPS = 18;

  static final int F_ASYNC = 1;
  static final int F_LAST = 2;
  static final int F_COUNT_ONLY = 4;

  /** A write whose caller discards its result: the primary's reply carries no value. */
  static final int F_NO_RESULT = 8;

  /**
   * On a last STATE chunk: the source is in another view than the pull's (or in none yet), so the
   * segments it could not serve are not known to be incomplete there: ask it again.
   */
  static final int F_OTHER_VIEW = 16;

  /** Reply statuses (in {@code op}). */
  static final int S_OK = 0;

  static final int S_RETRY = 1;
  static final int S_TIMEOUT = 2;
  static final int S_ERROR = 3;
  static final int S_NOT_AUTHORITATIVE = 4;

  /** The dictionary holds another value at the proposed id (payload: what the proposer lacks). */
  static final int S_CONFLICT = 5;

  /** The dictionary is behind the proposer (ints[0] = its size of the space). */
  static final int S_BEHIND = 6;

  static final int[] NO_INTS = new int[0];

  static Frame of(int type, long reqId, long viewId) {
    return new Frame(type, reqId, viewId, 0, 0, null, null, null, NO_INTS, List.of(), List.of());
  }

  static Frame reply(long reqId, long viewId, int status, byte[] payload) {
    return new Frame(
        T_REPLY, reqId, viewId, status, 0, null, payload, null, NO_INTS, List.of(), List.of());
  }

  Frame withNames(List<String> list) {
    return new Frame(type, reqId, viewId, op, flags, key, value, expected, ints, list, entries);
  }

  byte[] encode() {
    int size = 32 + len(key) + len(value) + len(expected) + 4 * ints.length;
    for (byte[] e : entries) {
      size += len(e);
    }
    ByteSink out = new ByteSink(size);
    out.writeByte(VERSION);
    out.writeByte(type);
    out.writeLong(reqId);
    out.writeLong(viewId);
    out.writeByte(op);
    out.writeByte(flags);
    writeBytes(out, key);
    writeBytes(out, value);
    writeBytes(out, expected);
    out.writeInt(ints.length);
    for (int i : ints) {
      out.writeInt(i);
    }
    out.writeInt(names.size());
    for (String n : names) {
      writeBytes(out, n.getBytes(StandardCharsets.UTF_8));
    }
    out.writeInt(entries.size() / 2);
    for (byte[] e : entries) {
      writeBytes(out, e);
    }
    // the size above is exact unless there are names: then the sink grew and is trimmed
    return out.size() == out.array().length ? out.array() : out.toByteArray();
  }

  /**
   * @throws CodecException if the bytes are not a version-4 frame
   */
  static Frame decode(byte[] array, int offset, int length) {
    ByteSource in = new ByteSource(array, offset, length);
    int version = in.readUnsignedByte();
    if (version != VERSION) {
      throw new CodecException("cluster frame version " + version + ", expected " + VERSION);
    }
    int type = in.readUnsignedByte();
    long reqId = in.readLong();
    long viewId = in.readLong();
    int op = in.readUnsignedByte();
    int flags = in.readUnsignedByte();
    byte[] key = readBytes(in);
    byte[] value = readBytes(in);
    byte[] expected = readBytes(in);
    int[] ints = new int[count(in, 4)];
    for (int i = 0; i < ints.length; i++) {
      ints[i] = in.readInt();
    }
    int nameCount = count(in, 4);
    List<String> names = new ArrayList<>(nameCount);
    for (int i = 0; i < nameCount; i++) {
      names.add(new String(readBytes(in), StandardCharsets.UTF_8));
    }
    int pairs = count(in, 8);
    List<byte[]> entries = new ArrayList<>(pairs * 2);
    for (int i = 0; i < pairs * 2; i++) {
      entries.add(readBytes(in));
    }
    if (!in.exhausted()) {
      throw new CodecException(in.remaining() + " trailing bytes after a cluster frame");
    }
    return new Frame(type, reqId, viewId, op, flags, key, value, expected, ints, names, entries);
  }

  private static int len(byte[] b) {
    return b == null ? 4 : 4 + b.length;
  }

  private static void writeBytes(ByteSink out, byte[] b) {
    if (b == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(b.length);
      out.writeBytes(b);
    }
  }

  private static byte[] readBytes(ByteSource in) {
    int n = in.readInt();
    if (n == -1) {
      return null;
    }
    if (n < 0 || n > in.remaining()) {
      throw new CodecException("bad length " + n + " in a cluster frame");
    }
    return in.readBytes(n);
  }

  /** Reads a count and checks it against the bytes left (each item takes at least minBytes). */
  private static int count(ByteSource in, int minBytes) {
    int n = in.readInt();
    if (n < 0 || (long) n * minBytes > in.remaining()) {
      throw new CodecException("bad count " + n + " in a cluster frame");
    }
    return n;
  }
}
