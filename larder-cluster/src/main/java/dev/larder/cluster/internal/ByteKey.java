package dev.larder.cluster.internal;

import java.util.Arrays;

/** A byte-array key with value equality, for the live-key sets of state transfer. */
@SuppressWarnings("ArrayRecordComponent") // equals and hashCode compare the content
record ByteKey(byte[] bytes) {

  @Override
  public boolean equals(Object o) {
    return o instanceof ByteKey other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "ByteKey[" + bytes.length + " bytes]";
  }
}
