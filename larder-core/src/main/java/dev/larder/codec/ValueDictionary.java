package dev.larder.codec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Value substitution: a bounded dictionary that turns values repeating across entries (qualified
 * names, namespace URIs, mimetypes, locales, small-domain strings) into small ids, written as
 * varints by the codecs that {@link #substitute} returns.
 *
 * <p><b>Spaces.</b> Values live in named spaces, each with its own ids 0, 1, 2, ..., so a space of
 * a few hundred values has one-byte ids. A space holds values of one type, all encoded by one
 * inline codec; the same name always means the same space.
 *
 * <p><b>Modes.</b> {@link Mode#ALWAYS} interns every value the codec writes (a field whose values
 * are known to repeat, such as property names); {@link Mode#ADAPTIVE} interns a value the second
 * time it is seen (values that may or may not repeat). Codecs of both modes may share a space.
 *
 * <p><b>Bounds and memory.</b> The dictionary holds at most {@code maximumEntries} values and at
 * most {@code maximumMemory} bytes as counted by {@link #memoryUsed()}; once either is reached, new
 * values are written inline (never evicted: ids are stable for the dictionary's lifetime). {@code
 * memoryUsed()} estimates the heap the dictionary holds: per entry a fixed 64 bytes (map node,
 * boxed id, array slots) plus three times the encoded length rounded up to an 8-byte array (the
 * bytes kept for snapshots, and the decoded value, which holds its data and headers); plus each
 * space's tables and the admission filter. A cache adds it to its own {@code memoryUsed}.
 *
 * <p><b>As data.</b> The content is a list of (space, id, bytes) additions in id order, which is
 * what {@link #snapshot()} writes (format in docs/spec/dictionary.md), what {@link #restore} reads,
 * what {@link #addListener} reports as each value is added (before any encoding uses its id, so a
 * log can persist it first), and what {@link #apply} replays on a replica.
 *
 * <p><b>Values.</b> Substituted values must be immutable and have value-based {@code equals}/{@code
 * hashCode}: a decoded id returns the dictionary's shared instance.
 *
 * <p><b>Thread safety.</b> All methods are thread-safe. Lookups (the common path of encoding and
 * decoding) take no lock; adding a value takes the dictionary's lock.
 */
public final class ValueDictionary {

  /** When a substituting codec adds a value to the dictionary. */
  public enum Mode {
    /** Every value written is interned (while the bounds allow). */
    ALWAYS,
    /** A value is interned the second time it is seen. */
    ADAPTIVE
  }

  /**
   * One value added to a space.
   *
   * @param space the space's name
   * @param id the value's id in its space
   * @param value the value's encoding by the space's inline codec ({@link Codec#encodeLast})
   */
  @SuppressWarnings("ArrayRecordComponent") // equals and hashCode compare the content
  public record Addition(String space, int id, byte[] value) {
    /** Checks and copies the arguments. */
    public Addition {
      Objects.requireNonNull(space, "space");
      value = value.clone();
      if (id < 0) {
        throw new IllegalArgumentException("negative id " + id);
      }
    }

    /** Returns a copy of the encoded value. */
    @Override
    public byte[] value() {
      return value.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Addition a
          && a.space.equals(space)
          && a.id == id
          && Arrays.equals(a.value, value);
    }

    @Override
    public int hashCode() {
      return (space.hashCode() * 31 + id) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      return "Addition[" + space + "#" + id + ", " + value.length + " bytes]";
    }
  }

  static final int ENTRY_OVERHEAD = 64;

  private final int maximumEntries;
  private final long maximumMemory;
  private final Object lock = new Object();
  private final Map<String, DictionarySpace> spaces = new LinkedHashMap<>();
  private final AdmissionFilter filter;
  private final List<Consumer<? super Addition>> listeners = new CopyOnWriteArrayList<>();
  private volatile int size;
  private volatile long entryMemory;
  private volatile long spaceMemory;

  private ValueDictionary(Builder builder) {
    this.maximumEntries = builder.maximumEntries;
    this.maximumMemory = builder.maximumMemory;
    this.filter = new AdmissionFilter(builder.admissionSlots);
  }

  /** Returns a builder with the defaults: 65,536 entries, 16 MiB, 4,096 admission slots. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a codec that writes values of {@code space} as ids where it can.
   *
   * @param space the space's name; created on first use
   * @param inline the codec of values written inline, and of the space's stored bytes
   * @param mode when values are added
   * @param <T> the value type
   * @return a thread-safe codec; not {@linkplain Codec#deterministic() deterministic}
   * @throws IllegalArgumentException if the space already holds values of another type, or if
   *     restored entries of the space do not decode with {@code inline}
   */
  public <T> Codec<T> substitute(String space, Codec<T> inline, Mode mode) {
    Objects.requireNonNull(space, "space");
    Objects.requireNonNull(inline, "inline");
    Objects.requireNonNull(mode, "mode");
    synchronized (lock) {
      DictionarySpace s = spaces.computeIfAbsent(space, DictionarySpace::new);
      s.bind(inline);
      recountSpaces();
      return new SubstitutingCodec<>(this, s, inline, mode);
    }
  }

  /**
   * Called by a substituting codec for a value without an id.
   *
   * @return the value's id, or -1 if it stays inline
   */
  int admit(DictionarySpace space, Object value, Mode mode) {
    if (mode == Mode.ADAPTIVE && !filter.seenBefore(value.hashCode())) {
      return -1;
    }
    if (isFull()) {
      return -1;
    }
    synchronized (lock) {
      int id = space.idOf(value);
      if (id >= 0) {
        return id;
      }
      byte[] bytes = encode(space, value);
      long cost = entryCost(bytes.length);
      if (size >= maximumEntries || memoryUsed() + cost > maximumMemory) {
        return -1;
      }
      return add(space, value, bytes, cost);
    }
  }

  private boolean isFull() {
    return size >= maximumEntries || memoryUsed() + ENTRY_OVERHEAD > maximumMemory;
  }

  /** Caller holds the lock; keeps {@link #memoryUsed()} lock-free. */
  private void recountSpaces() {
    long total = 0;
    for (DictionarySpace s : spaces.values()) {
      total += s.baseMemory();
    }
    spaceMemory = total;
  }

  @SuppressWarnings("unchecked")
  private static byte[] encode(DictionarySpace space, Object value) {
    ByteSink sink = new ByteSink(32);
    ((Codec<Object>) space.codec()).encodeLast(value, sink);
    return sink.toByteArray();
  }

  /**
   * Caller holds the lock. Listeners run first, so a failing log stops the addition. The counters
   * are volatile for lock-free readers and written only here, under the lock.
   */
  @SuppressWarnings("NonAtomicVolatileUpdate")
  private int add(DictionarySpace space, Object value, byte[] bytes, long cost) {
    Addition addition = new Addition(space.name(), space.size(), bytes);
    for (Consumer<? super Addition> listener : listeners) {
      listener.accept(addition);
    }
    int id = space.append(value, bytes);
    entryMemory += cost;
    size++;
    recountSpaces();
    return id;
  }

  static long entryCost(int encodedLength) {
    long array = (16L + encodedLength + 7) & ~7L;
    return ENTRY_OVERHEAD + 3 * array;
  }

  /**
   * Replays an addition reported by another dictionary's listener or read from a log. Replaying an
   * addition already present (same space, id and bytes) does nothing.
   *
   * @param addition the addition; its id must be the space's next id or an existing one
   * @throws IllegalArgumentException if the id is out of sequence, conflicts with the existing
   *     entry, does not decode with the space's codec, or the bounds are exceeded
   */
  public void apply(Addition addition) {
    synchronized (lock) {
      DictionarySpace space = spaces.computeIfAbsent(addition.space(), DictionarySpace::new);
      byte[] bytes = addition.value;
      if (addition.id() < space.size()) {
        requireSame(space, addition);
        return;
      }
      if (addition.id() != space.size()) {
        throw new IllegalArgumentException(
            "addition "
                + addition
                + " out of sequence: space '"
                + space.name()
                + "' has "
                + space.size()
                + " entries");
      }
      long cost = entryCost(bytes.length);
      if (size >= maximumEntries || memoryUsed() + cost > maximumMemory) {
        throw new IllegalArgumentException(
            "addition "
                + addition
                + " exceeds the bounds ("
                + maximumEntries
                + " entries, "
                + maximumMemory
                + " bytes)");
      }
      add(space, space.decodeIfBound(bytes, addition.id()), bytes, cost);
    }
  }

  private static void requireSame(DictionarySpace space, Addition addition) {
    if (!Arrays.equals(space.encodedOf(addition.id()), addition.value)) {
      throw new IllegalArgumentException(
          "addition "
              + addition
              + " conflicts with the entry"
              + " already in space '"
              + space.name()
              + "'");
    }
  }

  /**
   * Registers a listener told of every addition, in id order, under the dictionary's lock and
   * before the new id is written anywhere. A listener that throws stops the addition: the value is
   * written inline and the exception reaches the encoding caller.
   *
   * @param listener called once per addition; must be fast and must not call back into this
   *     dictionary's codecs
   */
  public void addListener(Consumer<? super Addition> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Returns the total number of values in all spaces. */
  public int size() {
    return size;
  }

  /**
   * Returns its number of values, 0 if it does not exist.
   *
   * @param space a space's name
   */
  public int size(String space) {
    synchronized (lock) {
      DictionarySpace s = spaces.get(space);
      return s == null ? 0 : s.size();
    }
  }

  /** Returns the spaces' names, in order of creation. */
  public List<String> spaces() {
    synchronized (lock) {
      return List.copyOf(spaces.keySet());
    }
  }

  /** Returns the estimated heap bytes the dictionary holds (see the class description). */
  public long memoryUsed() {
    return 64 + filter.memory() + spaceMemory + entryMemory;
  }

  /** Returns the bound on the number of values. */
  public int maximumEntries() {
    return maximumEntries;
  }

  /** Returns the bound on {@link #memoryUsed()}. */
  public long maximumMemory() {
    return maximumMemory;
  }

  /**
   * Writes the whole content in the snapshot format of docs/spec/dictionary.md. Taken under the
   * lock, so it is a consistent cut: every id used before the call is in it.
   *
   * @return the snapshot
   */
  public byte[] snapshot() {
    synchronized (lock) {
      return DictionaryFormat.write(new ArrayList<>(spaces.values()));
    }
  }

  /**
   * Restores a snapshot into a new dictionary with this builder's bounds. Spaces are bound to their
   * codecs (and their values decoded) by the first {@link #substitute} call for them.
   *
   * @param snapshot bytes written by {@link #snapshot()}
   * @param bounds the bounds of the new dictionary
   * @return the dictionary, whose ids are the snapshot's
   * @throws IllegalArgumentException if the snapshot is malformed or exceeds the bounds
   */
  public static ValueDictionary restore(byte[] snapshot, Builder bounds) {
    ValueDictionary dictionary = bounds.build();
    try {
      for (Addition a : DictionaryFormat.read(snapshot)) {
        dictionary.apply(a);
      }
    } catch (CodecException e) {
      throw new IllegalArgumentException("malformed dictionary snapshot: " + e.getMessage(), e);
    }
    return dictionary;
  }

  /** Builds a {@link ValueDictionary}; not thread-safe. */
  public static final class Builder {
    private int maximumEntries = 65_536;
    private long maximumMemory = 16L << 20;
    private int admissionSlots = 4_096;

    private Builder() {}

    /**
     * Returns this builder.
     *
     * @param entries the most values the dictionary holds; positive
     */
    public Builder maximumEntries(int entries) {
      if (entries <= 0) {
        throw new IllegalArgumentException("maximumEntries must be positive: " + entries);
      }
      this.maximumEntries = entries;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param bytes the most memory the dictionary counts; at least 64 KiB
     */
    public Builder maximumMemory(long bytes) {
      if (bytes < 65_536) {
        throw new IllegalArgumentException("maximumMemory must be at least 65536: " + bytes);
      }
      this.maximumMemory = bytes;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param slots the admission filter's size (how many recent distinct values adaptive
     *     substitution remembers); a power of two from 64 to 2^20
     */
    public Builder admissionSlots(int slots) {
      if (slots < 64 || slots > 1 << 20 || Integer.bitCount(slots) != 1) {
        throw new IllegalArgumentException(
            "admissionSlots must be a power of two in [64, 2^20]: " + slots);
      }
      this.admissionSlots = slots;
      return this;
    }

    /** Returns a new, empty dictionary. */
    public ValueDictionary build() {
      return new ValueDictionary(this);
    }
  }
}
