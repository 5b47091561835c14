package dev.larder.server.internal.keyspace;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;

/**
 * A hash's payload: {@code varint count}, then for each field {@code varint length, bytes} of the
 * field then of its value, in insertion order. Fields are held decoded as Latin-1 strings, which
 * map bytes to chars one to one, so that they have value equality.
 *
 * <p>Stateless and thread-safe; the maps it returns are the caller's.
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

  private static byte[] readChunk(byte[] in, long[] cursor) {
    long length = Varint.read(in, cursor);
    int start = (int) cursor[0];
    if (length > in.length - start) {
      throw new IllegalArgumentException("hash field longer than its payload");
    }
    cursor[0] = start + length;
    return java.util.Arrays.copyOfRange(in, start, (int) (start + length));
  }
}
