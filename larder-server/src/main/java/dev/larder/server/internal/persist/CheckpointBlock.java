package dev.larder.server.internal.persist;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.server.internal.keyspace.Varint;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The entries of a server checkpoint (format version 3, and versions 1 and 2 read; the reference is
 * {@code docs/spec/server-log.md}).
 *
 * <pre>
 * entry 0: header   u8 kind 0, u8 format version 3, varint item version,
 *                   varint keys (the keyspace's size when the checkpoint began; not in version 1)
 * entries 1..:      u8 kind 1, u8 db (0..15, or 0x80 | db for list chunks: version 3), then items
 *                   to the end of the entry:
 *                     varint k, k bytes key (without the db byte)
 *                     varint v, v bytes stored value without its version
 * </pre>
 *
 * <p>A block is about {@value #TARGET_BYTES} bytes; an item larger than that gets a block of its
 * own. Grouping keys by database saves the database byte of each, and dropping the version saves
 * its varint: a loader gives every item a fresh version.
 *
 * <p>{@link Writer} is used by one thread; {@link #read} is stateless.
 */
final class CheckpointBlock {
  static final int HEADER = 0;
  static final int BLOCK = 1;
  static final int VERSION = 3;

  /** The version before list chunks, whose blocks are of databases 0 to 15 only; still read. */
  static final int VERSION_WITHOUT_CHUNKS = 2;

  /** The first version, whose header has no key count; still read. */
  static final int VERSION_WITHOUT_KEYS = 1;

  static final int TARGET_BYTES = 64 * 1024;

  private CheckpointBlock() {}

  /**
   * Returns the header entry.
   *
   * @param itemVersion the version the items are loaded with: reserved when the checkpoint began,
   *     so no write had it, and above every version given out before
   * @param keys the keyspace's size when the checkpoint began: what a loader sizes the store for
   *     (the checkpoint may hold a few more or fewer keys, written while it was taken)
   */
  static byte[] header(long itemVersion, long keys) {
    byte[] out = new byte[2 + Varint.size(itemVersion) + Varint.size(keys)];
    out[0] = HEADER;
    out[1] = VERSION;
    Varint.write(out, Varint.write(out, 2, itemVersion), keys);
    return out;
  }

  /** Receives a finished block, in an array the writer reuses once this returns. */
  @FunctionalInterface
  interface BlockSink {
    /**
     * Receives one block.
     *
     * @param bytes holds the block from index 0
     * @param length its length
     */
    void block(byte[] bytes, int length);
  }

  /**
   * Gathers items into one block per database and hands each full block on. A writer made by {@link
   * #reusing} fills the same array of each database again once its block was handed on, so a
   * checkpoint allocates nothing per block either.
   */
  static final class Writer {
    private final BlockSink entries;
    // Indexed by the stored key's first byte: a database, or a database's chunk space.
    private final byte[][] blocks = new byte[256][];
    private final int[] lengths = new int[256];
    private long items;

    /**
     * @param entries receives each finished block
     */
    Writer(Consumer<byte[]> entries) {
      this.entries = (bytes, length) -> entries.accept(Arrays.copyOf(bytes, length));
    }

    private Writer(BlockSink entries) {
      this.entries = entries;
    }

    /**
     * Returns a writer that hands each block in an array it reuses afterwards.
     *
     * @param sink receives each finished block; copies what it keeps
     */
    static Writer reusing(BlockSink sink) {
      return new Writer(sink);
    }

    /**
     * @param storedKey a stored key (db byte, key)
     * @param storedValue its stored value
     */
    void add(byte[] storedKey, byte[] storedValue) {
      byte[] entry = new byte[storedKey.length + storedValue.length];
      System.arraycopy(storedKey, 0, entry, 0, storedKey.length);
      System.arraycopy(storedValue, 0, entry, storedKey.length, storedValue.length);
      add(entry, storedKey.length, storedValue.length);
    }

    /**
     * Adds an item given as it lies in an array (copied: the array may be reused afterwards).
     *
     * @param entry holds a stored key (db byte, key) from index 0, then its stored value
     * @param keyLength the stored key's length, at least 1
     * @param valueLength the stored value's length
     */
    void add(byte[] entry, int keyLength, int valueLength) {
      int db = entry[0] & 0xFF;
      int nameLength = keyLength - 1;
      int versionEnd = ValueLayout.versionEnd(entry, keyLength);
      int valueEnd = keyLength + valueLength;
      int restLength = valueEnd - versionEnd;
      int unversionedLength = restLength + 1;
      int size =
          Varint.size(nameLength) + nameLength + Varint.size(unversionedLength) + unversionedLength;
      if (lengths[db] > 2 && lengths[db] + size > TARGET_BYTES) {
        emit(db);
      }
      if (blocks[db] == null || blocks[db].length < size + 2) {
        blocks[db] = new byte[Math.max(TARGET_BYTES, size + 2)];
        blocks[db][0] = BLOCK;
        blocks[db][1] = (byte) db;
        lengths[db] = 2;
      }
      byte[] b = blocks[db];
      int pos = Varint.write(b, lengths[db], nameLength);
      System.arraycopy(entry, 1, b, pos, nameLength);
      pos = Varint.write(b, pos + nameLength, unversionedLength);
      b[pos++] = entry[keyLength];
      System.arraycopy(entry, versionEnd, b, pos, restLength);
      lengths[db] = pos + restLength;
      items++;
    }

    /** Hands on every block not yet full. */
    void finish() {
      for (int db = 0; db < blocks.length; db++) {
        if (lengths[db] > 2) {
          emit(db);
        }
      }
    }

    /** Returns items added. */
    long items() {
      return items;
    }

    private void emit(int db) {
      entries.block(blocks[db], lengths[db]);
      lengths[db] = 2;
    }
  }

  /** Receives what a checkpoint holds. */
  interface Visitor {
    /**
     * Receives the checkpoint's header.
     *
     * @param itemVersion the header's item version
     * @param keys the header's key count, 0 in a version 1 header (which has none)
     */
    void header(long itemVersion, long keys);

    /**
     * Receives one item, as it lies in its block (nothing is copied: the visitor copies what it
     * keeps).
     *
     * @param db the item's database
     * @param block the block
     * @param keyOffset where the key (without the db byte) starts in {@code block}
     * @param keyLength its length
     * @param valueOffset where the value without its version starts in {@code block}
     * @param valueLength its length, at least 1
     */
    void item(int db, byte[] block, int keyOffset, int keyLength, int valueOffset, int valueLength);
  }

  /**
   * Reads one entry.
   *
   * @param entry a checkpoint entry
   * @param visitor receives its content
   * @throws IllegalArgumentException if the entry does not parse
   */
  static void read(byte[] entry, Visitor visitor) {
    read(entry, 0, entry.length, visitor);
  }

  /**
   * Reads one entry that lies in part of an array.
   *
   * @param bytes holds the entry
   * @param offset where it starts
   * @param length its length
   * @param visitor receives its content
   * @throws IllegalArgumentException if the entry does not parse
   */
  static void read(byte[] bytes, int offset, int length, Visitor visitor) {
    if (length < 2) {
      throw new IllegalArgumentException("checkpoint entry of " + length + " bytes");
    }
    int end = offset + length;
    byte kind = bytes[offset];
    byte format = bytes[offset + 1];
    if (kind == HEADER) {
      if (format != VERSION && format != VERSION_WITHOUT_CHUNKS && format != VERSION_WITHOUT_KEYS) {
        throw new IllegalArgumentException(
            "server checkpoint format "
                + format
                + " (this server reads "
                + VERSION_WITHOUT_KEYS
                + " to "
                + VERSION
                + ")");
      }
      long[] at = {offset + 2};
      long itemVersion = Varint.read(bytes, at);
      visitor.header(itemVersion, format != VERSION_WITHOUT_KEYS ? Varint.read(bytes, at) : 0);
      return;
    }
    int space = format & 0xFF;
    if (kind != BLOCK
        || (space >= Keyspace.DATABASES
            && (space & ~0x0F) != dev.larder.server.internal.keyspace.ChunkKey.CHUNK_SPACE)) {
      throw new IllegalArgumentException("unknown checkpoint entry kind " + kind);
    }
    int db = format;
    long[] at = {offset + 2};
    while (at[0] < end) {
      int keyLength = length(bytes, at, end);
      int keyOffset = (int) at[0];
      at[0] += keyLength;
      int valueLength = length(bytes, at, end);
      if (valueLength < 1) {
        throw new IllegalArgumentException("empty value in a checkpoint block");
      }
      visitor.item(db, bytes, keyOffset, keyLength, (int) at[0], valueLength);
      at[0] += valueLength;
    }
  }

  /** Reads a length and checks that that many bytes follow before {@code end}. */
  private static int length(byte[] in, long[] at, int end) {
    if (at[0] >= end) {
      throw new IllegalArgumentException("a length past the block's end");
    }
    long n = Varint.read(in, at);
    // a varint that ran past the end leaves at[0] > end: refused here too
    if (n > end - at[0]) {
      throw new IllegalArgumentException("length " + n + " past the block's end");
    }
    return (int) n;
  }
}
