package dev.larder.history;

import java.util.List;
import java.util.Objects;

/**
 * One micro-operation of a recorded transaction, on one key. Two data models are checked:
 * <b>list-append</b> ({@link Append}, {@link ReadList}: each key holds a list, a transaction
 * appends to it or reads all of it) and <b>read-write registers</b> ({@link Write}, {@link Read}:
 * each key holds one value). A history may mix them, but each key must use one model.
 *
 * <p>Within a history, every value appended to or written to a key must be unique to that key: that
 * is what lets the checker tell which transaction wrote what it reads.
 */
public sealed interface Op permits Op.Append, Op.ReadList, Op.Write, Op.Read {

  /** Returns the key. */
  String key();

  /**
   * Appends {@code value} to the list at {@code key}.
   *
   * @param key the key
   * @param value unique among the values appended to this key
   */
  record Append(String key, long value) implements Op {
    /** Checks the key. */
    public Append {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * Reads the whole list at {@code key}.
   *
   * @param key the key
   * @param values what the read returned, oldest first (empty for an absent key)
   */
  record ReadList(String key, List<Long> values) implements Op {
    /**
     * Checks and copies into a compact immutable list (kept as it is if it came from {@link
     * ListReads}, which shares the elements of agreeing reads).
     *
     * @throws NullPointerException if the key, the list or an element is null
     */
    public ReadList {
      Objects.requireNonNull(key, "key");
      values = LongPrefix.of(values);
    }
  }

  /**
   * Writes {@code value} to the register at {@code key}.
   *
   * @param key the key
   * @param value unique among the values written to this key
   */
  record Write(String key, long value) implements Op {
    /** Checks the key. */
    public Write {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * Reads the register at {@code key}.
   *
   * @param key the key
   * @param value what the read returned; null if the key was absent (never written)
   */
  record Read(String key, Long value) implements Op {
    /** Checks the key. */
    public Read {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * Returns an append.
   *
   * @param key the key
   * @param value the value
   */
  static Op append(String key, long value) {
    return new Append(key, value);
  }

  /**
   * Returns a list read.
   *
   * @param key the key
   * @param values the list read
   */
  static Op readList(String key, Long... values) {
    return new ReadList(key, List.of(values));
  }

  /**
   * Returns a register write.
   *
   * @param key the key
   * @param value the value
   */
  static Op write(String key, long value) {
    return new Write(key, value);
  }

  /**
   * Returns a register read.
   *
   * @param key the key
   * @param value the value read, or null for absent
   */
  static Op read(String key, Long value) {
    return new Read(key, value);
  }
}
