package dev.larder.server.internal.persist;

import dev.larder.server.internal.keyspace.Varint;
import dev.larder.wal.RecordPayload;
import java.util.List;

/**
 * The payload of a server log record: one atomic group of keyspace changes (format version 1; the
 * reference is {@code docs/spec/server-log.md}).
 *
 * <pre>
 * log record type 16
 * varint   n: number of changes, &gt;= 1
 * n times:
 *   u8     op
 *   op 1 PUT        varint k, k bytes stored key; varint v, v bytes stored value
 *   op 2 DELETE     varint k, k bytes stored key
 *   op 3 EVICT      varint k, k bytes stored key; varint version (remove only if it matches)
 *   op 4 FLUSH_DB   u8 db
 *   op 5 FLUSH_ALL
 * </pre>
 *
 * <p>The stored keys and values are the keyspace's own bytes, copied as they are. Stateless and
 * thread-safe; a {@link Payload} is used by one appender.
 */
final class ChangeRecord {
  /** The log record type of a change group. */
  static final int TYPE = 16;

  static final int PUT = 1;
  static final int DELETE = 2;
  static final int EVICT = 3;
  static final int FLUSH_DB = 4;
  static final int FLUSH_ALL = 5;

  private ChangeRecord() {}

  /**
   * One change.
   *
   * @param op the op code
   * @param key the stored key (PUT, DELETE, EVICT), else null
   * @param value the stored value (PUT), else null
   * @param number the version (EVICT) or the database (FLUSH_DB), else 0
   */
  @SuppressWarnings("ArrayRecordComponent") // a log record's change, never compared; not copied
  record Change(int op, byte[] key, byte[] value, long number) {
    int size() {
      return switch (op) {
        case PUT -> 1 + bytes(key) + bytes(value);
        case DELETE -> 1 + bytes(key);
        case EVICT -> 1 + bytes(key) + Varint.size(number);
        case FLUSH_DB -> 2;
        case FLUSH_ALL -> 1;
        default -> throw new IllegalStateException("op " + op);
      };
    }

    int writeTo(byte[] out, int pos) {
      out[pos++] = (byte) op;
      switch (op) {
        case PUT -> pos = put(out, put(out, pos, key), value);
        case DELETE -> pos = put(out, pos, key);
        case EVICT -> pos = Varint.write(out, put(out, pos, key), number);
        case FLUSH_DB -> out[pos++] = (byte) number;
        default -> {}
      }
      return pos;
    }

    private static int bytes(byte[] b) {
      return Varint.size(b.length) + b.length;
    }

    private static int put(byte[] out, int pos, byte[] b) {
      int at = Varint.write(out, pos, b.length);
      System.arraycopy(b, 0, out, at, b.length);
      return at + b.length;
    }
  }

  /** A group's payload, written straight into the log's buffer. */
  static final class Payload implements RecordPayload {
    private final List<Change> changes;
    private final int length;

    /**
     * @param changes the group, at least one
     */
    Payload(List<Change> changes) {
      this.changes = changes;
      int n = Varint.size(changes.size());
      for (Change c : changes) {
        n += c.size();
      }
      this.length = n;
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public void writeTo(byte[] out, int offset) {
      int pos = Varint.write(out, offset, changes.size());
      for (Change c : changes) {
        pos = c.writeTo(out, pos);
      }
      if (pos != offset + length) {
        throw new IllegalStateException("change record length " + (pos - offset) + " != " + length);
      }
    }
  }

  /** Receives the changes of a record, in order. */
  interface Visitor {
    /**
     * Receives a put.
     *
     * @param key stored key
     * @param value stored value
     */
    void put(byte[] key, byte[] value);

    /**
     * Receives a delete.
     *
     * @param key stored key
     */
    void delete(byte[] key);

    /**
     * Receives an eviction.
     *
     * @param key stored key
     * @param version the evicted value's version
     */
    void evict(byte[] key, long version);

    /**
     * Receives a flush.
     *
     * @param db the database, or -1 for all
     */
    void flush(int db);
  }

  /**
   * Reads a record's payload.
   *
   * @param payload the payload
   * @param visitor receives each change
   * @throws IllegalArgumentException if the payload does not parse to its end
   */
  static void read(byte[] payload, Visitor visitor) {
    long[] at = {0};
    long n = Varint.read(payload, at);
    if (n < 1) {
      throw new IllegalArgumentException("a change record of no changes");
    }
    for (long i = 0; i < n; i++) {
      int op = u8(payload, at);
      switch (op) {
        case PUT -> visitor.put(bytes(payload, at), bytes(payload, at));
        case DELETE -> visitor.delete(bytes(payload, at));
        case EVICT -> visitor.evict(bytes(payload, at), Varint.read(payload, at));
        case FLUSH_DB -> {
          int db = u8(payload, at);
          if (db > 15) {
            throw new IllegalArgumentException("database " + db);
          }
          visitor.flush(db);
        }
        case FLUSH_ALL -> visitor.flush(-1);
        default -> throw new IllegalArgumentException("unknown change op " + op);
      }
    }
    if (at[0] != payload.length) {
      throw new IllegalArgumentException((payload.length - at[0]) + " bytes after the changes");
    }
  }

  private static int u8(byte[] in, long[] at) {
    if (at[0] >= in.length) {
      throw new IllegalArgumentException("record ends early");
    }
    return in[(int) at[0]++] & 0xFF;
  }

  private static byte[] bytes(byte[] in, long[] at) {
    long n = Varint.read(in, at);
    if (n > in.length - at[0]) {
      throw new IllegalArgumentException("length " + n + " past the record's end");
    }
    int from = (int) at[0];
    at[0] += n;
    return java.util.Arrays.copyOfRange(in, from, from + (int) n);
  }
}
