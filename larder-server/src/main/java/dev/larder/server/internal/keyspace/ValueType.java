package dev.larder.server.internal.keyspace;

/**
 * The kinds of value a key can hold; the code is the three-bit type field of the value layout's tag
 * byte (see {@link ValueLayout}), so at most eight kinds.
 */
public enum ValueType {
  /** A byte string: Redis strings and memcached items. */
  STRING(0, "string"),
  /** A map of byte-string fields to byte-string values: Redis hashes. */
  HASH(1, "hash"),
  /** A sequence of byte-string elements: Redis lists ({@link ListPayload}). */
  LIST(2, "list"),
  /** An unordered collection of distinct byte strings: Redis sets ({@link SetPayload}). */
  SET(3, "set"),
  /** Distinct byte strings each with a double score: Redis sorted sets ({@link ZSetPayload}). */
  ZSET(4, "zset");

  private final int code;
  private final String redisName;

  ValueType(int code, String redisName) {
    this.code = code;
    this.redisName = redisName;
  }

  /** Returns the three-bit code written in the tag byte. */
  public int code() {
    return code;
  }

  /** Returns the name Redis's TYPE command gives this kind. */
  public String redisName() {
    return redisName;
  }

  /**
   * Returns its type.
   *
   * @param code a three-bit code
   * @throws IllegalArgumentException for a code no type has
   */
  public static ValueType ofCode(int code) {
    return switch (code) {
      case 0 -> STRING;
      case 1 -> HASH;
      case 2 -> LIST;
      case 3 -> SET;
      case 4 -> ZSET;
      default -> throw new IllegalArgumentException("unknown value type code " + code);
    };
  }
}
