package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * A set or a hash being read or changed by one command, in either stored form: one packed payload
 * (a small one) or the chunks a chunked one's head names ({@link RangeChunks}), each a packed
 * payload read from the store only when the command reaches it. The keyspace builds it ({@link
 * Keyspace#editSet}, {@link Keyspace#editHash}), the command works on it, and the keyspace writes
 * back what changed. An entry is a set's member (its value empty) or a hash's field and value; its
 * key is the member or the field.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The collection is a run of segments in key-hash order ({@link ScanCursor#hash}), each a packed
 * payload ({@link RangeCodec}) with its range's lowest hash, entry count and size; a packed
 * collection is one segment covering every hash. An entry's segment is found by a binary search of
 * the lowest hashes, so a lookup or a change reads one chunk. A changed segment is marked dirty:
 * only dirty segments are written back. When the collection is written ({@link #normalize}), a
 * segment grown past {@link #CHUNK_BYTES} is split into pieces at key-hash boundaries, an emptied
 * one is dropped (its neighbour below takes its range), and a small changed one is merged with a
 * neighbour. A random entry is drawn by position over the segments' counts, so every entry is
 * equally likely whatever the chunks' sizes.
 *
 * <p>Not thread-safe: one command's, under its key's stripe.
 */
public final class RangeBody {
  /** A chunk whose payload passes this is split. */
  static final int CHUNK_BYTES = 4096;

  /** A changed chunk below this is merged with a neighbour if the two fit in a chunk. */
  static final int MERGE_BELOW = 1024;

  /** A packed collection whose payload passes this becomes chunked. */
  static final int PACKED_MAX = 8192;

  /** A chunked collection whose chunks hold less than this together becomes packed again. */
  static final int CHUNKED_MIN = 2048;

  static final class Segment {
    int number;
    long low;
    int count;
    int bytes;
    byte[] payload;
    boolean dirty;

    Segment(int number, long low, int count, int bytes, byte[] payload) {
      this.number = number;
      this.low = low;
      this.count = count;
      this.bytes = bytes;
      this.payload = payload;
    }
  }

  private final RangeCodec codec;
  private final List<Segment> segments = new ArrayList<>();
  private final ListBody.Loader loader;
  private final RangeChunks.Index index;
  private boolean changed;

  private RangeBody(RangeCodec codec, ListBody.Loader loader, RangeChunks.Index index) {
    this.codec = codec;
    this.loader = loader;
    this.index = index;
  }

  /** An empty collection (an absent key). */
  static RangeBody empty(RangeCodec codec) {
    return new RangeBody(codec, n -> null, null);
  }

  /** A packed collection. */
  static RangeBody packed(RangeCodec codec, byte[] payload) {
    RangeBody b = empty(codec);
    b.segments.add(new Segment(-1, 0, codec.count(payload), payload.length, payload));
    return b;
  }

  /** A chunked collection whose chunks {@code loader} reads. */
  static RangeBody chunked(RangeCodec codec, RangeChunks.Index index, ListBody.Loader loader) {
    RangeBody b = new RangeBody(codec, loader, index);
    for (int i = 0; i < index.chunks(); i++) {
      b.segments.add(
          new Segment(index.number(i), index.low(i), index.count(i), index.bytes(i), null));
    }
    return b;
  }

  /** Returns whether it was read in the chunked form. */
  boolean wasChunked() {
    return index != null;
  }

  /** Returns the index it was read from, or null if it was not chunked. */
  RangeChunks.Index index() {
    return index;
  }

  /** Returns whether a command changed it. */
  boolean changed() {
    return changed;
  }

  List<Segment> segmentList() {
    return segments;
  }

  /** Returns the number of entries. */
  public int size() {
    long n = 0;
    for (Segment s : segments) {
      n += s.count;
    }
    return (int) Math.min(n, Integer.MAX_VALUE);
  }

  /** Returns the payload bytes of every segment together. */
  long bytes() {
    long n = 0;
    for (Segment s : segments) {
      n += s.bytes;
    }
    return n;
  }

  /** Returns whether an entry has that key (a set's member, a hash's field). */
  public boolean contains(byte[] key) {
    return get(key) != null;
  }

  /** Returns the value of the entry with that key (empty for a set's member), or null. */
  public byte[] get(byte[] key) {
    Segment s = segmentOf(ScanCursor.hash(key));
    return s == null || s.count == 0 ? null : codec.get(payload(s), key);
  }

  /** Adds a set's member; returns whether it was not a member. */
  public boolean add(byte[] member) {
    return put(member, RangeCodec.NO_VALUE);
  }

  /**
   * Sets an entry (a set's member: the value is ignored); returns whether its key is new.
   *
   * @param key a set's member or a hash's field
   * @param value a hash's value
   */
  public boolean put(byte[] key, byte[] value) {
    if (segments.isEmpty()) {
      segments.add(new Segment(-1, 0, 0, 0, null));
    }
    Segment s = segmentOf(ScanCursor.hash(key));
    byte[] p = s.count == 0 ? null : payload(s);
    boolean fresh = p == null || codec.get(p, key) == null;
    byte[] next = codec.put(p, key, value);
    if (next != null) {
      set(s, next);
    }
    return fresh;
  }

  /** Removes the entry with that key; returns whether there was one. */
  public boolean remove(byte[] key) {
    Segment s = segmentOf(ScanCursor.hash(key));
    if (s == null || s.count == 0) {
      return false;
    }
    byte[] next = codec.remove(payload(s), key);
    if (next == null) {
      return false;
    }
    set(s, next);
    return true;
  }

  /**
   * Returns the entry at a position of the collection's order (segment by segment, each in its
   * payload's order), {@code {key, value}}, reading only the segment that holds it.
   *
   * @param i a position, 0 to size - 1
   */
  public byte[][] entry(int i) {
    for (Segment s : segments) {
      if (i < s.count) {
        return codec.entryAt(payload(s), i);
      }
      i -= s.count;
    }
    throw new IndexOutOfBoundsException("no entry at that position");
  }

  /** Returns the key of the entry at a position: see {@link #entry}. */
  public byte[] key(int i) {
    return entry(i)[0];
  }

  /** Returns a key drawn uniformly, or null if the collection is empty. */
  public byte[] randomKey(RandomGenerator r) {
    int n = size();
    return n == 0 ? null : key(r.nextInt(n));
  }

  /** Returns every entry, segment by segment, each {@code {key, value}}. */
  public List<byte[][]> entries() {
    List<byte[][]> out = new ArrayList<>(size());
    for (Segment s : segments) {
      if (s.count > 0) {
        out.addAll(codec.entries(payload(s)));
      }
    }
    return out;
  }

  /** Returns every key, segment by segment. */
  public List<byte[]> keys() {
    List<byte[]> out = new ArrayList<>(size());
    for (byte[][] e : entries()) {
      out.add(e[0]);
    }
    return out;
  }

  /**
   * Collects one SSCAN or HSCAN page: the entries whose key's hash is at least {@code cursor},
   * segment by segment from the one that holds it, until the page has {@code count} matching ones.
   *
   * @param cursor the client's cursor
   * @param count how many entries to aim for
   * @param matches which keys the page keeps
   * @param page receives the page's entries, in key-hash order
   * @return the next cursor, 0 when the scan is complete
   */
  public long scan(long cursor, int count, Predicate<byte[]> matches, List<byte[][]> page) {
    ScanCursor scan = new ScanCursor(cursor, count);
    List<byte[][]> offered = new ArrayList<>();
    int i = segments.isEmpty() ? 0 : segments.indexOf(segmentOf(cursor));
    for (; i < segments.size() && offered.size() < count; i++) {
      Segment s = segments.get(i);
      if (s.count == 0) {
        continue;
      }
      for (byte[][] e : codec.entries(payload(s))) {
        if (matches.test(e[0]) && ScanCursor.hash(e[0]) >= cursor) {
          scan.offer(e[0]);
          offered.add(e);
        }
      }
    }
    List<byte[]> keys = new ArrayList<>();
    long next = scan.finish(keys);
    IdentityHashMap<byte[], byte[][]> byKey = new IdentityHashMap<>();
    for (byte[][] e : offered) {
      byKey.put(e[0], e);
    }
    for (byte[] k : keys) {
      page.add(byKey.get(k));
    }
    if (next == 0 && i < segments.size()) {
      // The page holds every entry below the next segment's range: go on from there.
      return segments.get(i).low;
    }
    return next;
  }

  /** Returns the whole collection as one packed payload. */
  byte[] packedPayload() {
    if (segments.size() == 1 && !wasChunked()) {
      return payload(segments.getFirst());
    }
    return codec.encode(entries());
  }

  /** Returns a segment's payload, reading it if needed. */
  byte[] payloadOf(Segment s) {
    return payload(s);
  }

  private byte[] payload(Segment s) {
    if (s.payload == null) {
      byte[] p = loader.load(s.number);
      if (p == null) {
        throw new ListBody.MissingChunk();
      }
      s.payload = p;
    }
    return s.payload;
  }

  private void set(Segment s, byte[] payload) {
    s.payload = payload;
    s.count = codec.count(payload);
    s.bytes = payload.length;
    s.dirty = true;
    changed = true;
  }

  /** The segment whose range holds {@code hash}, or null if there is none. */
  private Segment segmentOf(long hash) {
    int lo = 0;
    int hi = segments.size() - 1;
    if (hi < 0) {
      return null;
    }
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (segments.get(mid).low <= hash) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return segments.get(lo);
  }

  /**
   * Brings the segments into the form they are written in: one packed segment, or chunks of at most
   * about {@link #CHUNK_BYTES} (split at hash boundaries), none empty, small changed ones merged
   * with a neighbour.
   *
   * @param packed whether the collection is written packed
   */
  void normalize(boolean packed) {
    if (packed) {
      if (segments.size() != 1 || wasChunked()) {
        Segment one = new Segment(-1, 0, 0, 0, null);
        set(one, codec.encode(entries()));
        segments.clear();
        segments.add(one);
      }
      return;
    }
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      if (s.dirty && s.bytes > CHUNK_BYTES) {
        List<Segment> pieces = split(s);
        segments.remove(i);
        segments.addAll(i, pieces);
        i += pieces.size() - 1;
      }
    }
    segments.removeIf(s -> s.count == 0);
    for (int i = 0; i + 1 < segments.size(); i++) {
      Segment a = segments.get(i);
      Segment b = segments.get(i + 1);
      if ((a.dirty || b.dirty)
          && (a.bytes < MERGE_BELOW || b.bytes < MERGE_BELOW)
          && a.bytes + b.bytes <= CHUNK_BYTES) {
        List<byte[][]> both = new ArrayList<>(codec.entries(payload(a)));
        both.addAll(codec.entries(payload(b)));
        set(a, codec.encode(both));
        segments.remove(i + 1);
        i--;
      }
    }
    segments.getFirst().low = 0;
  }

  /**
   * Splits a segment into pieces of about half a chunk each, at key-hash boundaries (one piece if
   * every key has the same hash). The first piece keeps the segment's number and lowest hash.
   */
  private List<Segment> split(Segment s) {
    List<byte[][]> es = codec.entries(payload(s));
    long[] hashes = new long[es.size()];
    Integer[] order = new Integer[es.size()];
    for (int i = 0; i < es.size(); i++) {
      hashes[i] = ScanCursor.hash(es.get(i)[0]);
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingLong(i -> hashes[i]));
    int pieces = Math.max(2, (s.bytes + CHUNK_BYTES / 2 - 1) / (CHUNK_BYTES / 2));
    int per = Math.max(1, es.size() / pieces);
    List<Segment> out = new ArrayList<>();
    List<byte[][]> piece = new ArrayList<>();
    long pieceLow = s.low;
    for (int k = 0; k < order.length; k++) {
      long hash = hashes[order[k]];
      if (piece.size() >= per && hash != hashes[order[k - 1]]) {
        out.add(piece(out.isEmpty() ? s.number : -1, pieceLow, piece));
        piece = new ArrayList<>();
        pieceLow = hash;
      }
      piece.add(es.get(order[k]));
    }
    out.add(piece(out.isEmpty() ? s.number : -1, pieceLow, piece));
    return out;
  }

  private Segment piece(int number, long low, List<byte[][]> entries) {
    Segment p = new Segment(number, low, 0, 0, null);
    set(p, codec.encode(entries));
    return p;
  }
}
