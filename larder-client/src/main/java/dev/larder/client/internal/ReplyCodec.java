package dev.larder.client.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Writes a command's reply, as Jedis built it, to bytes and back.
 *
 * <p>Implementation notes. A reply is a tag byte and its body:
 *
 * <pre>
 *   0 null                      (nothing)
 *   1 byte[]                    varint length, the bytes
 *   2 String                    varint length, its UTF-8 bytes
 *   3 Long                      zigzag varint
 *   4 Double                    8 bytes, the IEEE 754 bits, big-endian
 *   5 Boolean.TRUE, 6 FALSE     (nothing)
 *   7 ArrayList                 varint count, each element a reply
 *   8 HashSet, 9 LinkedHashSet  varint count, each element a reply
 *  10 HashMap, 11 LinkedHashMap varint count, each key then value a reply
 *  12 anything else            varint length, its Java serialization
 * </pre>
 *
 * The compact forms cover what Jedis's default cacheable commands return as plain values: GET,
 * GETRANGE, HGET and the like (byte[] or String), counts and lengths (Long), scores (Double),
 * membership (Boolean), and the lists, sets and maps of them (LRANGE, SMEMBERS, HGETALL, MGET...).
 * Collections are rebuilt as the exact class Jedis gave (a collection of another class, such as
 * Jedis's byte-keyed map of HGETALL on byte[] keys, or an unmodifiable list, is written whole in
 * the last form, as Jedis's own cache writes every value), so a reply read back equals the reply
 * stored and behaves the same. (A reply Java cannot serialize, such as ZRANGE WITHSCORES's {@code
 * Tuple}s, never reaches a cache: Jedis serializes every reply before handing it over.) A String
 * holding a lone surrogate, which UTF-8 cannot carry, also takes the last form.
 *
 * <p>Decoding checks every length and count against the bytes left, so damaged bytes fail with an
 * exception rather than allocating beyond the value. Thread-safe: no state.
 */
public final class ReplyCodec {
  private static final int NULL = 0;
  private static final int BYTES = 1;
  private static final int STRING = 2;
  private static final int LONG = 3;
  private static final int DOUBLE = 4;
  private static final int TRUE = 5;
  private static final int FALSE = 6;
  private static final int ARRAY_LIST = 7;
  private static final int HASH_SET = 8;
  private static final int LINKED_HASH_SET = 9;
  private static final int HASH_MAP = 10;
  private static final int LINKED_HASH_MAP = 11;
  private static final int SERIALIZED = 12;

  private ReplyCodec() {}

  /** A value that the compact forms do not cover. */
  private static final class NotCompact extends Exception {
    private static final long serialVersionUID = 1L;

    NotCompact() {
      super(null, null, false, false);
    }
  }

  /**
   * Appends {@code reply}'s encoding.
   *
   * @param reply the reply, or null
   * @param out where to write
   * @throws IllegalArgumentException if the reply is neither of a compact form nor serializable
   */
  public static void write(Object reply, ByteArrayOutputStream out) {
    ByteArrayOutputStream compact = new ByteArrayOutputStream(64);
    try {
      writeCompact(reply, compact);
      out.writeBytes(compact.toByteArray());
    } catch (NotCompact e) {
      writeSerialized(reply, out);
    }
  }

  /**
   * Reads one reply.
   *
   * @param in positioned at a reply; advanced past it
   * @return the reply, a new object
   * @throws IllegalArgumentException or {@link java.nio.BufferUnderflowException} if the bytes are
   *     not a reply
   */
  public static Object read(ByteBuffer in) {
    int tag = in.get();
    return switch (tag) {
      case NULL -> null;
      case BYTES -> bytes(in);
      case STRING -> new String(bytes(in), StandardCharsets.UTF_8);
      case LONG -> Varint.readSigned(in);
      case DOUBLE -> in.getDouble();
      case TRUE -> true;
      case FALSE -> false;
      case ARRAY_LIST -> readElements(in, new ArrayList<>());
      case HASH_SET -> readElements(in, new HashSet<>());
      case LINKED_HASH_SET -> readElements(in, new LinkedHashSet<>());
      case HASH_MAP -> readPairs(in, new HashMap<>());
      case LINKED_HASH_MAP -> readPairs(in, new LinkedHashMap<>());
      case SERIALIZED -> deserialize(bytes(in));
      default -> throw new IllegalArgumentException("no reply has the tag " + tag);
    };
  }

  private static void writeCompact(Object reply, ByteArrayOutputStream out) throws NotCompact {
    switch (reply) {
      case null -> out.write(NULL);
      case byte[] b -> writeBytes(BYTES, b, out);
      case String s -> writeString(s, out);
      case Long l -> {
        out.write(LONG);
        Varint.writeSigned(out, l);
      }
      case Double d -> {
        out.write(DOUBLE);
        out.writeBytes(ByteBuffer.allocate(Double.BYTES).putDouble(d).array());
      }
      case Boolean b -> out.write(b ? TRUE : FALSE);
      case Collection<?> c when c.getClass() == ArrayList.class -> writeAll(ARRAY_LIST, c, out);
      case Collection<?> c when c.getClass() == HashSet.class -> writeAll(HASH_SET, c, out);
      case Collection<?> c when c.getClass() == LinkedHashSet.class ->
          writeAll(LINKED_HASH_SET, c, out);
      case Map<?, ?> m when m.getClass() == HashMap.class -> writeMap(HASH_MAP, m, out);
      case Map<?, ?> m when m.getClass() == LinkedHashMap.class ->
          writeMap(LINKED_HASH_MAP, m, out);
      default -> throw new NotCompact();
    }
  }

  private static void writeString(String s, ByteArrayOutputStream out) throws NotCompact {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        // Only pairs survive UTF-8; a string with surrogates is checked whole.
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (!new String(utf8, StandardCharsets.UTF_8).equals(s)) {
          throw new NotCompact();
        }
        writeBytes(STRING, utf8, out);
        return;
      }
    }
    writeBytes(STRING, s.getBytes(StandardCharsets.UTF_8), out);
  }

  private static void writeBytes(int tag, byte[] b, ByteArrayOutputStream out) {
    out.write(tag);
    Varint.write(out, b.length);
    out.write(b, 0, b.length);
  }

  private static void writeAll(int tag, Collection<?> c, ByteArrayOutputStream out)
      throws NotCompact {
    out.write(tag);
    Varint.write(out, c.size());
    for (Object element : c) {
      writeCompact(element, out);
    }
  }

  private static void writeMap(int tag, Map<?, ?> m, ByteArrayOutputStream out) throws NotCompact {
    out.write(tag);
    Varint.write(out, m.size());
    for (Map.Entry<?, ?> e : m.entrySet()) {
      writeCompact(e.getKey(), out);
      writeCompact(e.getValue(), out);
    }
  }

  private static void writeSerialized(Object reply, ByteArrayOutputStream out) {
    if (!(reply instanceof Serializable)) {
      throw new IllegalArgumentException(
          "a reply of " + reply.getClass().getName() + " is neither compact nor serializable");
    }
    ByteArrayOutputStream serialized = new ByteArrayOutputStream(256);
    try (ObjectOutputStream oos = new ObjectOutputStream(serialized)) {
      oos.writeObject(reply);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot serialize a " + reply.getClass().getName(), e);
    }
    writeBytes(SERIALIZED, serialized.toByteArray(), out);
  }

  private static byte[] bytes(ByteBuffer in) {
    byte[] b = new byte[Varint.readCount(in, 1)];
    in.get(b);
    return b;
  }

  private static <C extends Collection<Object>> C readElements(ByteBuffer in, C c) {
    int n = Varint.readCount(in, 1);
    for (int i = 0; i < n; i++) {
      c.add(read(in));
    }
    return c;
  }

  private static <M extends Map<Object, Object>> M readPairs(ByteBuffer in, M m) {
    int n = Varint.readCount(in, 2);
    for (int i = 0; i < n; i++) {
      Object key = read(in);
      m.put(key, read(in));
    }
    return m;
  }

  private static Object deserialize(byte[] bytes) {
    // Only bytes this codec wrote from a reply Jedis built reach here: the cache never stores
    // bytes from elsewhere.
    try (ObjectInputStream ois = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      return ois.readObject();
    } catch (IOException | ClassNotFoundException e) {
      throw new IllegalArgumentException("cannot read a serialized reply", e);
    }
  }
}
