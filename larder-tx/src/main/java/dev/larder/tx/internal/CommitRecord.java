package dev.larder.tx.internal;

import dev.larder.codec.ValueDictionary;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of a commit record in the log, and of a checkpoint entry (docs/spec/wal.md,
 * docs/spec/checkpoint.md). Key and value bytes are those the cache stores, unchanged.
 *
 * <pre>
 * commit payload (log record type 1)
 *   varint  number of writes
 *   per write:
 *     varint  cache index (position in the store's cache manifest)
 *     varint  key length, then key bytes
 *     varint  stored length + 1, then stored bytes; 0 = the key was removed
 *
 * checkpoint entry
 *     varint  cache index
 *     varint  key length, then key bytes
 *     stored bytes (the rest of the entry)
 *
 * dictionary addition payload (log record type 2)
 *   varint  space name length, then the name in UTF-8
 *   varint  id
 *   varint  value length, then the value bytes (the space's inline codec form)
 *
 * checkpoint entry of a dictionary addition
 *     varint  2^31-1, then the dictionary addition payload
 * </pre>
 *
 * varint: unsigned LEB128.
 */
public final class CommitRecord {

  /** Log record type of a commit. */
  public static final int TYPE_COMMIT = 1;

  /** Log record type of a value dictionary addition. */
  public static final int TYPE_DICTIONARY = 2;

  /** The cache index that marks a checkpoint entry holding a dictionary addition. */
  public static final int DICTIONARY_ENTRY = Integer.MAX_VALUE;

  private CommitRecord() {}

  /**
   * One write: stored bytes, or null for a removal.
   *
   * @param cache cache index
   * @param key key bytes
   * @param stored stored bytes or null
   */
  @SuppressWarnings("ArrayRecordComponent") // a log record's write, never compared; not copied
  public record Write(int cache, byte[] key, byte[] stored) {}

  /**
   * Returns the payload.
   *
   * @param writes the commit's writes
   */
  public static byte[] encode(List<Write> writes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    varint(out, writes.size());
    for (Write w : writes) {
      varint(out, w.cache());
      varint(out, w.key().length);
      out.writeBytes(w.key());
      if (w.stored() == null) {
        varint(out, 0);
      } else {
        varint(out, w.stored().length + 1L);
        out.writeBytes(w.stored());
      }
    }
    return out.toByteArray();
  }

  /**
   * Returns the payload, as {@link #encode(List)} of that one write.
   *
   * @param write a commit's only write
   */
  public static byte[] encode(Write write) {
    return encodeOne(write.cache(), write.key(), write.stored());
  }

  /**
   * The payload of a commit of one write, sized exactly (the blind-write path).
   *
   * @param cache cache index
   * @param key key bytes
   * @param stored stored bytes, or null for a removal
   * @return the payload, as {@link #encode(List)} of that one write
   */
  public static byte[] encodeOne(int cache, byte[] key, byte[] stored) {
    byte[] out = new byte[oneWriteLength(cache, key, stored)];
    writeOne(out, 0, cache, key, stored);
    return out;
  }

  /**
   * Returns the length of {@link #encodeOne}'s payload.
   *
   * @param cache cache index
   * @param key key bytes
   * @param stored stored bytes, or null for a removal
   */
  public static int oneWriteLength(int cache, byte[] key, byte[] stored) {
    long storedField = stored == null ? 0 : stored.length + 1L;
    return 1
        + varintSize(cache)
        + varintSize(key.length)
        + key.length
        + varintSize(storedField)
        + (stored == null ? 0 : stored.length);
  }

  /**
   * Writes {@link #encodeOne}'s payload into {@code out} at {@code at}.
   *
   * @param out the buffer, with {@link #oneWriteLength} bytes from {@code at}
   * @param at where to write
   * @param cache cache index
   * @param key key bytes
   * @param stored stored bytes, or null for a removal
   */
  public static void writeOne(byte[] out, int at, int cache, byte[] key, byte[] stored) {
    at = putVarint(out, at, 1);
    at = putVarint(out, at, cache);
    at = putVarint(out, at, key.length);
    System.arraycopy(key, 0, out, at, key.length);
    at = putVarint(out, at + key.length, stored == null ? 0 : stored.length + 1L);
    if (stored != null) {
      System.arraycopy(stored, 0, out, at, stored.length);
    }
  }

  private static int varintSize(long v) {
    int n = 1;
    while ((v >>>= 7) != 0) {
      n++;
    }
    return n;
  }

  private static int putVarint(byte[] out, int at, long v) {
    while ((v & ~0x7FL) != 0) {
      out[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[at++] = (byte) v;
    return at;
  }

  /**
   * Returns its writes.
   *
   * @param payload a commit payload
   * @throws IllegalArgumentException if malformed
   */
  public static List<Write> decode(byte[] payload) {
    int[] at = {0};
    long count = readVarint(payload, at);
    List<Write> writes = new ArrayList<>();
    for (long i = 0; i < count; i++) {
      int cache = (int) readVarint(payload, at);
      byte[] key = readBytes(payload, at, (int) readVarint(payload, at));
      long length = readVarint(payload, at);
      byte[] stored = length == 0 ? null : readBytes(payload, at, (int) (length - 1));
      writes.add(new Write(cache, key, stored));
    }
    if (at[0] != payload.length) {
      throw new IllegalArgumentException("trailing bytes in a commit record");
    }
    return writes;
  }

  /**
   * Returns a checkpoint entry.
   *
   * @param cache cache index
   * @param key key bytes
   * @param stored stored bytes
   */
  public static byte[] entry(int cache, byte[] key, byte[] stored) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(key.length + stored.length + 8);
    varint(out, cache);
    varint(out, key.length);
    out.writeBytes(key);
    out.writeBytes(stored);
    return out.toByteArray();
  }

  /**
   * Returns it as a write.
   *
   * @param entry a checkpoint entry
   */
  public static Write decodeEntry(byte[] entry) {
    int[] at = {0};
    int cache = (int) readVarint(entry, at);
    byte[] key = readBytes(entry, at, (int) readVarint(entry, at));
    byte[] stored = readBytes(entry, at, entry.length - at[0]);
    return new Write(cache, key, stored);
  }

  /**
   * Returns its payload.
   *
   * @param addition a dictionary addition
   */
  public static byte[] encodeAddition(ValueDictionary.Addition addition) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(32);
    writeAddition(out, addition);
    return out.toByteArray();
  }

  /**
   * Returns its checkpoint entry.
   *
   * @param addition a dictionary addition
   */
  public static byte[] additionEntry(ValueDictionary.Addition addition) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(32);
    varint(out, DICTIONARY_ENTRY);
    writeAddition(out, addition);
    return out.toByteArray();
  }

  /**
   * Returns the addition, or null if {@code entry} and this is not a dictionary entry.
   *
   * @param bytes a payload of type 2, or a checkpoint entry
   * @param entry true for a checkpoint entry (which starts with the dictionary marker)
   */
  public static ValueDictionary.Addition decodeAddition(byte[] bytes, boolean entry) {
    int[] at = {0};
    if (entry && readVarint(bytes, at) != DICTIONARY_ENTRY) {
      return null;
    }
    byte[] name = readBytes(bytes, at, (int) readVarint(bytes, at));
    int id = (int) readVarint(bytes, at);
    byte[] value = readBytes(bytes, at, (int) readVarint(bytes, at));
    if (at[0] != bytes.length) {
      throw new IllegalArgumentException("trailing bytes in a dictionary addition");
    }
    return new ValueDictionary.Addition(new String(name, StandardCharsets.UTF_8), id, value);
  }

  private static void writeAddition(ByteArrayOutputStream out, ValueDictionary.Addition a) {
    byte[] name = a.space().getBytes(StandardCharsets.UTF_8);
    varint(out, name.length);
    out.writeBytes(name);
    varint(out, a.id());
    byte[] value = a.value();
    varint(out, value.length);
    out.writeBytes(value);
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    long x = v;
    while ((x & ~0x7FL) != 0) {
      out.write((int) ((x & 0x7F) | 0x80));
      x >>>= 7;
    }
    out.write((int) x);
  }

  private static long readVarint(byte[] b, int[] at) {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at[0] >= b.length) {
        throw new IllegalArgumentException("truncated varint");
      }
      int x = b[at[0]++];
      result |= (long) (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        return result;
      }
    }
    throw new IllegalArgumentException("varint too long");
  }

  private static byte[] readBytes(byte[] b, int[] at, int length) {
    if (length < 0 || length > b.length - at[0]) {
      throw new IllegalArgumentException("length out of range");
    }
    byte[] out = java.util.Arrays.copyOfRange(b, at[0], at[0] + length);
    at[0] += length;
    return out;
  }
}
