package dev.larder.cluster.internal;

import java.util.Arrays;
import java.util.function.BiPredicate;

/**
 * What a write does to a key given its current value. Values are compared as encoded bytes: the
 * codecs are deterministic (equal values encode to equal bytes), so this is value equality.
 *
 * @param changes true if the key's value changes (newValue null = removed)
 * @param newValue the value after the write, or null for a removal
 * @param result what the caller gets: the previous value, or a one-byte boolean
 */
@SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
record Outcome(boolean changes, byte[] newValue, byte[] result) {

  /** The result of a conditional write that changed the key. */
  static final byte[] TRUE = {1};

  /** The result of a conditional write that did not. */
  static final byte[] FALSE = {0};

  static Outcome of(Op op, byte[] current, byte[] value, byte[] expected) {
    return of(op, current, value, expected, Arrays::equals);
  }

  /**
   * @param same value equality on encoded bytes (byte equality for deterministic codecs; a decoding
   *     comparison for codecs that substitute through a dictionary)
   */
  static Outcome of(
      Op op, byte[] current, byte[] value, byte[] expected, BiPredicate<byte[], byte[]> same) {
    return switch (op) {
      case PUT -> new Outcome(true, value, current);
      case PUT_IF_ABSENT ->
          current == null ? new Outcome(true, value, null) : new Outcome(false, null, current);
      case REPLACE ->
          current != null ? new Outcome(true, value, current) : new Outcome(false, null, null);
      case REPLACE_IF ->
          current != null && same.test(current, expected)
              ? new Outcome(true, value, bool(true))
              : new Outcome(false, null, bool(false));
      case REMOVE -> new Outcome(current != null, null, current);
      case REMOVE_IF ->
          current != null && same.test(current, expected)
              ? new Outcome(true, null, bool(true))
              : new Outcome(false, null, bool(false));
    };
  }

  static byte[] bool(boolean b) {
    return b ? TRUE : FALSE;
  }
}
