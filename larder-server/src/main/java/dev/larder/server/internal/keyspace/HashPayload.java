package dev.larder.server.internal.keyspace;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * A hash's payload: {@code varint count}, then for each field {@code varint length, bytes} of the
 * field then of its value, in insertion order. Fields are held decoded as Latin-1 strings, which
 * map bytes to chars one to one, so that they have value equality.
 *
 * <p>The map form ({@link #decode}, {@link #encode}) serves commands that read a hash whole; the
 * entry form ({@link #get}, {@link #put}, {@link #remove}, {@link #entries}) works on the bytes
 * without a map, for the field commands on a packed hash or on one chunk of a chunked hash ({@link
 * RangeChunks}), where a field is found by walking a few KiB.
 *
 * <p>Stateless and thread-safe; the maps and arrays it returns are the caller's.
 */
public final class HashPayload {
  private HashPayload() {}

  /**
   * Returns its fields in order, keyed by {@link #field(byte[])}.
   *
   * @param payload a hash payload
   * @throws IllegalArgumentException if malformed
   */
  public static SequencedMap<String, byte[]> decode(byte[] payload) {
    long[] cursor = {0};
    long count = Varint.read(payload, cursor);
    if (count > payload.length) {
      throw new IllegalArgumentException("hash count larger than its payload");
    }
    LinkedHashMap<String, byte[]> fields = LinkedHashMap.newLinkedHashMap((int) count);
    for (long i = 0; i < count; i++) {
      String field = field(readChunk(payload, cursor));
      fields.put(field, readChunk(payload, cursor));
    }
    return fields;
  }

  /**
   * Returns the payload.
   *
   * @param fields fields keyed by {@link #field(byte[])}
   */
  public static byte[] encode(Map<String, byte[]> fields) {
    int size = Varint.size(fields.size());
    for (Map.Entry<String, byte[]> e : fields.entrySet()) {
      size += Varint.size(e.getKey().length()) + e.getKey().length();
      size += Varint.size(e.getValue().length) + e.getValue().length;
    }
    byte[] out = new byte[size];
    int pos = Varint.write(out, 0, fields.size());
    for (Map.Entry<String, byte[]> e : fields.entrySet()) {
      byte[] f = bytes(e.getKey());
      pos = Varint.write(out, pos, f.length);
      System.arraycopy(f, 0, out, pos, f.length);
      pos += f.length;
      pos = Varint.write(out, pos, e.getValue().length);
      System.arraycopy(e.getValue(), 0, out, pos, e.getValue().length);
      pos += e.getValue().length;
    }
    return out;
  }

  /**
   * Returns the map key that stands for them.
   *
   * @param bytes a field's bytes
   */
  public static String field(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  /**
   * Returns the field's bytes.
   *
   * @param field a map key from {@link #field(byte[])}
   */
  public static byte[] bytes(String field) {
    return field.getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * Returns how many fields it holds.
   *
   * @param payload a hash payload
   */
  public static int count(byte[] payload) {
    // Below 128 (most chunks): one byte, read without the varint loop.
    long count =
        payload.length > 0 && payload[0] >= 0 ? payload[0] : Varint.read(payload, new long[] {0});
    if (count > payload.length) {
      throw new IllegalArgumentException("hash count larger than its payload");
    }
    return (int) count;
  }

  /**
   * Returns a field's value, or null if the hash has no such field.
   *
   * @param payload a hash payload
   * @param field a field's bytes
   */
  public static byte[] get(byte[] payload, byte[] field) {
    int[] at = find(payload, field);
    return at == null ? null : Arrays.copyOfRange(payload, at[2], at[2] + at[3]);
  }

  /**
   * Returns the payload with the field set: its value replaced in place, or the field appended; the
   * very array given when the field already holds that value (nothing to copy).
   *
   * @param payload a hash payload, or null for an empty hash
   * @param field a field's bytes
   * @param value its value
   */
  public static byte[] put(byte[] payload, byte[] field, byte[] value) {
    if (payload == null) {
      return encodeEntries(List.<byte[][]>of(new byte[][] {field, value}));
    }
    int[] at = find(payload, field);
    if (at == null) {
      int count = count(payload);
      int head = Varint.size(count);
      int entry = Varint.size(field.length) + field.length + Varint.size(value.length);
      byte[] out = new byte[Varint.size(count + 1) + payload.length - head + entry + value.length];
      int pos = Varint.write(out, 0, count + 1);
      System.arraycopy(payload, head, out, pos, payload.length - head);
      pos += payload.length - head;
      pos = writeChunk(out, pos, field);
      writeChunk(out, pos, value);
      return out;
    }
    if (Arrays.equals(payload, at[2], at[2] + at[3], value, 0, value.length)) {
      return payload; // set to what it holds: the same bytes, no copy
    }
    int valueStart = at[1];
    int valueEnd = at[2] + at[3];
    byte[] out =
        new byte
            [payload.length - (valueEnd - valueStart) + Varint.size(value.length) + value.length];
    System.arraycopy(payload, 0, out, 0, valueStart);
    int pos = writeChunk(out, valueStart, value);
    System.arraycopy(payload, valueEnd, out, pos, payload.length - valueEnd);
    return out;
  }

  /**
   * Returns the payload without the field (an empty hash's payload when it was the last), or null
   * if the hash has no such field.
   *
   * @param payload a hash payload
   * @param field a field's bytes
   */
  public static byte[] remove(byte[] payload, byte[] field) {
    int[] at = find(payload, field);
    if (at == null) {
      return null;
    }
    int count = count(payload);
    int head = Varint.size(count);
    int entryStart = at[0];
    int entryEnd = at[2] + at[3];
    byte[] out = new byte[Varint.size(count - 1) + payload.length - head - (entryEnd - entryStart)];
    int pos = Varint.write(out, 0, count - 1);
    System.arraycopy(payload, head, out, pos, entryStart - head);
    pos += entryStart - head;
    System.arraycopy(payload, entryEnd, out, pos, payload.length - entryEnd);
    return out;
  }

  /**
   * Returns its fields and values in order, each as {@code {field, value}}.
   *
   * @param payload a hash payload
   */
  public static List<byte[][]> entries(byte[] payload) {
    long[] cursor = {0};
    int count = count(payload);
    cursor[0] = Varint.size(count);
    List<byte[][]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      byte[] field = readChunk(payload, cursor);
      out.add(new byte[][] {field, readChunk(payload, cursor)});
    }
    return out;
  }

  /**
   * Returns the payload of these fields and values, in order.
   *
   * @param entries {@code {field, value}} pairs, fields distinct
   */
  public static byte[] encodeEntries(List<byte[][]> entries) {
    int size = Varint.size(entries.size());
    for (byte[][] e : entries) {
      size += Varint.size(e[0].length) + e[0].length + Varint.size(e[1].length) + e[1].length;
    }
    byte[] out = new byte[size];
    int pos = Varint.write(out, 0, entries.size());
    for (byte[][] e : entries) {
      pos = writeChunk(out, pos, e[0]);
      pos = writeChunk(out, pos, e[1]);
    }
    return out;
  }

  /**
   * Finds a field: {entry start, value's length varint start, value start, value length}, or null.
   * A walk of the entries by int positions, a one-byte length read without the varint loop: the
   * walk is HSET's and HGET's cost on a chunk of a hundred fields or more.
   */
  private static int[] find(byte[] payload, byte[] field) {
    int count = count(payload);
    int pos = Varint.size(count);
    for (int i = 0; i < count; i++) {
      int entryStart = pos;
      long f = lengthAt(payload, pos);
      int fieldLength = (int) (f >>> 32);
      int fieldStart = (int) f;
      int valueHead = fieldStart + fieldLength;
      long v = lengthAt(payload, valueHead);
      int valueLength = (int) (v >>> 32);
      int valueStart = (int) v;
      // The last byte first: fields of one chunk often share a prefix and a length
      // ("field:000123"), so most are told apart there without a call to Arrays.equals.
      if (fieldLength == field.length
          && (fieldLength == 0 || payload[fieldStart + fieldLength - 1] == field[fieldLength - 1])
          && Arrays.equals(payload, fieldStart, fieldStart + fieldLength, field, 0, field.length)) {
        return new int[] {entryStart, valueHead, valueStart, valueLength};
      }
      pos = valueStart + valueLength;
    }
    return null;
  }

  /**
   * Reads a length at {@code pos}: the length in the high 32 bits, where its bytes start in the low
   * 32.
   *
   * @throws IllegalArgumentException if it runs past the payload
   */
  private static long lengthAt(byte[] in, int pos) {
    if (pos < in.length && in[pos] >= 0) {
      int length = in[pos]; // below 128: one byte
      if (length > in.length - pos - 1) {
        throw new IllegalArgumentException("hash field longer than its payload");
      }
      return (long) length << 32 | (pos + 1);
    }
    long[] cursor = {pos};
    int length = length(in, cursor);
    return (long) length << 32 | cursor[0];
  }

  private static int length(byte[] in, long[] cursor) {
    long length = Varint.read(in, cursor);
    if (length > in.length - cursor[0]) {
      throw new IllegalArgumentException("hash field longer than its payload");
    }
    return (int) length;
  }

  private static int writeChunk(byte[] out, int pos, byte[] bytes) {
    pos = Varint.write(out, pos, bytes.length);
    System.arraycopy(bytes, 0, out, pos, bytes.length);
    return pos + bytes.length;
  }

  private static byte[] readChunk(byte[] in, long[] cursor) {
    long length = Varint.read(in, cursor);
    int start = (int) cursor[0];
    if (length > in.length - start) {
      throw new IllegalArgumentException("hash field longer than its payload");
    }
    cursor[0] = start + length;
    return Arrays.copyOfRange(in, start, (int) (start + length));
  }
}
