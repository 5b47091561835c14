package dev.larder.server.internal.keyspace;

/**
 * Where each field of one hash chunk's payload starts ({@link HashPayload}), by the field's key
 * hash ({@link ScanCursor#hash}): an open hash keeps one per chunk, so that HSET and HGET find a
 * field by a probe or two instead of a walk of the chunk's hundred-odd entries.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>An open-addressing table with linear probing: each slot holds an entry's start plus one (0 for
 * an empty slot) and the low 32 bits of its field's hash, so a probe compares bytes only for a hash
 * that matches. It describes one payload array, the one it was last built or kept for ({@link
 * #describes}); a chunk's payload is replaced, never changed in place, so a stale index is known by
 * that array's identity. A field appended at the end with the entry count's varint keeping its
 * length, or a value replaced by one of the same length, leaves every other entry where it was:
 * {@link #added} and {@link #keep} carry the index over to the new array without a walk; any other
 * change leaves it stale, and the next lookup builds it again.
 *
 * <p>Not thread-safe: its body's, under the key's stripe.
 */
final class FieldIndex {
  private int[] starts = new int[0];
  private int[] hashes = new int[0];
  private int size;
  private byte[] payload;

  /** Returns whether it describes that payload array. */
  @SuppressWarnings("ReferenceEquality") // one array, by identity: see the class notes
  boolean describes(byte[] p) {
    return p != null && p == payload;
  }

  /** Returns the bytes it holds, counted in an open hash's size. */
  long heldBytes() {
    return 8L * starts.length;
  }

  /** Builds it for a payload (a well-formed hash payload). */
  void build(byte[] p) {
    int count = HashPayload.count(p);
    int capacity = 16;
    while (capacity < 2 * count + 2) {
      capacity <<= 1;
    }
    if (starts.length != capacity) {
      starts = new int[capacity];
      hashes = new int[capacity];
    } else {
      java.util.Arrays.fill(starts, 0);
    }
    size = 0;
    int pos = Varint.size(count);
    for (int i = 0; i < count; i++) {
      int start = pos;
      long field = HashPayload.lengthAt(p, pos);
      int fieldStart = (int) field;
      int fieldEnd = fieldStart + (int) (field >>> 32);
      insert(start, (int) ScanCursor.hash(p, fieldStart, fieldEnd));
      long value = HashPayload.lengthAt(p, fieldEnd);
      pos = (int) value + (int) (value >>> 32);
    }
    payload = p;
  }

  /**
   * Returns where the entry of that field starts in the payload it describes, or -1 if it holds no
   * such field.
   *
   * @param field the field's bytes
   * @param hash {@link ScanCursor#hash} of them
   */
  int find(byte[] field, long hash) {
    int h = (int) hash;
    int mask = starts.length - 1;
    for (int slot = spread(h) & mask; starts[slot] != 0; slot = (slot + 1) & mask) {
      if (hashes[slot] == h && HashPayload.fieldAt(payload, starts[slot] - 1, field)) {
        return starts[slot] - 1;
      }
    }
    return -1;
  }

  /**
   * Carries the index over to {@code next}, the payload with a field appended at {@code start}, if
   * every other entry kept its place; else leaves it stale.
   */
  void added(byte[] next, int start, long hash) {
    payload = null;
    if (2 * (size + 1) + 2 > starts.length) {
      return; // full enough to grow: built again at the next lookup
    }
    insert(start, (int) hash);
    payload = next;
  }

  /** Carries the index over to {@code next}, whose entries start where the described one's do. */
  void keep(byte[] next) {
    payload = next;
  }

  /** Marks it stale. */
  void invalidate() {
    payload = null;
  }

  private void insert(int start, int h) {
    int mask = starts.length - 1;
    int slot = spread(h) & mask;
    while (starts[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    starts[slot] = start + 1;
    hashes[slot] = h;
    size++;
  }

  /** The chunk's fields share their hash's high bits (its range): probe by the low ones, mixed. */
  private static int spread(int h) {
    return h ^ (h >>> 7) ^ (h >>> 15);
  }
}
