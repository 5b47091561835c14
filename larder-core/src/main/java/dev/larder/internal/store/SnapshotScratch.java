package dev.larder.internal.store;

/**
 * Where {@link Segment#snapshot} copies each entry for its visitor: one array, reused for every
 * entry of a walk and grown to the largest, so that a walk allocates nothing per entry. Used by one
 * walk at a time.
 */
public final class SnapshotScratch {
  private byte[] bytes = new byte[1024];
  private int keyLength;
  private int valueLength;

  /** Returns the array, with room for at least {@code length} bytes from index 0. */
  byte[] room(int length) {
    if (bytes.length < length) {
      bytes = new byte[Math.max(length, 2 * bytes.length)];
    }
    return bytes;
  }

  /** Records the lengths of the entry just copied. */
  void copied(int keyLength, int valueLength) {
    this.keyLength = keyLength;
    this.valueLength = valueLength;
  }

  byte[] bytes() {
    return bytes;
  }

  int keyLength() {
    return keyLength;
  }

  int valueLength() {
    return valueLength;
  }
}
