package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.ObjIntConsumer;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * A set or a hash being read or changed by one command, in either stored form: one packed payload
 * (a small one) or the chunks a chunked one's head names ({@link RangeChunks}), directly or through
 * index pages, each a packed payload read from the store only when the command reaches it. The
 * keyspace builds it ({@link Keyspace#editSet}, {@link Keyspace#editHash}), the command works on
 * it, and the keyspace writes back what changed. An entry is a set's member (its value empty) or a
 * hash's field and value; its key is the member or the field.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The collection is a run of segments in key-hash order ({@link ScanCursor#hash}), each a packed
 * payload ({@link RangeCodec}) with its range's lowest hash, entry count and size, or an index page
 * of a chunked collection standing for the chunks it lists, unread; a packed collection is one
 * segment covering every hash. An entry's segment is found by a binary search of the lowest hashes;
 * a page found so is read and replaced by its chunks ({@code expand}), and the search goes on among
 * them; so a lookup or a change reads the head, at most one page and one chunk. A changed segment
 * is marked dirty: only dirty segments are written back. When the collection is written ({@link
 * #normalize}), a segment grown past {@link #CHUNK_BYTES} is split into pieces at key-hash
 * boundaries, an emptied one is dropped (its neighbour below takes its range), and a small changed
 * one is merged with a neighbouring chunk. A random entry is drawn by position over the segments'
 * counts (a page's are its chunks' together), so every entry is equally likely whatever the chunks'
 * sizes. Once every page is read (an open collection's body), a position is found in a Fenwick tree
 * over the segments' counts ({@link SegmentIndex}) instead of by a walk, and a key's segment by a
 * binary search of a primitive array of their lowest hashes: built on the first use after the
 * segments were last added, removed or rebuilt, kept by each change of a count.
 *
 * <p>A command on an open collection runs all or nothing ({@link #beginUndo}): payloads are never
 * changed in place (a change makes a new array), so the first change of a segment in a command
 * keeps the segment's payload, count and size, and {@link #undo} puts them back.
 *
 * <p>Writing a chunked collection back ({@link #write}) keeps its head small: up to {@link
 * #HEAD_CHUNKS} chunks are listed in the head itself; a larger collection's chunks are all listed
 * in index pages of up to {@link #PAGE_CHUNKS}, each run of chunks read from pages (or made by a
 * split) folded into fresh pages, so a change rewrites its chunk, the one page it read, and the
 * head.
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

  /** A collection of up to this many chunks lists them in its head; a larger one, in pages. */
  static final int HEAD_CHUNKS = 32;

  /** The most chunks an index page lists (a page of about 1.3 KiB). */
  static final int PAGE_CHUNKS = 128;

  /** A run of fewer chunks is folded into a page beside it when the two fit in one page. */
  static final int PAGE_FOLD_BELOW = PAGE_CHUNKS / 4;

  static final class Segment {
    int number;
    long low;
    int count;
    int bytes;
    byte[] payload;
    boolean dirty;

    /** Whether it is listed among the segments changed since the last {@code splitTouched}. */
    boolean touched;

    /** Whether its state before the running command is kept for {@code undo}. */
    boolean kept;

    /** For an index page not read yet: the chunks it lists (else 0). */
    int pageChunks;

    Segment(int number, long low, int count, int bytes, byte[] payload) {
      this.number = number;
      this.low = low;
      this.count = count;
      this.bytes = bytes;
      this.payload = payload;
    }

    boolean isPage() {
      return pageChunks > 0;
    }
  }

  /** Reads a chunked collection's index pages, decoded ({@link RangeStore} keeps a few). */
  @FunctionalInterface
  interface PageReader {
    /**
     * Returns the chunks the index page of that number lists (an index not to be changed), or null
     * if the store does not hold the page.
     *
     * @param number the page's number
     * @param nextNumber the head's next number, above every number listed
     * @throws IllegalArgumentException if the page is malformed
     */
    RangeChunks.Index read(int number, int nextNumber);
  }

  private final ValueType type;
  private final List<Segment> segments = new ArrayList<>();
  private final ChunkLoader loader;
  private final PageReader pageReader;
  private final RangeChunks.Index index;
  private boolean changed;

  /**
   * The entries of every segment together, kept as segments change: every change of a count goes
   * through {@code set}, and what else rebuilds segments (a page read, a split, a merge, packing)
   * keeps the total.
   */
  private long total;

  /** Changes made so far (each entry put or removed): how an open collection sees a command's. */
  private long changes;

  /**
   * The segments changed since {@link #splitTouched} last ran (an open collection splits those that
   * grew large), each once.
   */
  private final List<Segment> touched = new ArrayList<>();

  /** Index pages among the segments, not read yet. */
  private int pages;

  /**
   * The payload bytes of every segment together, or -1 when not known: kept by each command's
   * change and each split between commands (an open collection's size is asked every few dozen
   * changes), recounted after anything else rebuilds segments.
   */
  private long payloadBytes = -1;

  /** Chunks the command removed (emptied or merged away): written back, they are removed. */
  private final List<Integer> dropped = new ArrayList<>();

  /** The numbers of the pages read and replaced by their chunks (written back under new ones). */
  private final List<Integer> expanded = new ArrayList<>();

  /** The pages the write-back made, with their numbers at the same positions in {@code made}. */
  private final List<RangeChunks.Index> madePages = new ArrayList<>();

  private final List<Integer> made = new ArrayList<>();

  /** The segments' lowest hashes and counts, indexed, while no page is left unread. */
  private final SegmentIndex segmentIndex = new SegmentIndex();

  /**
   * The segment {@link #segmentOf} found last and its position, so that the change that follows
   * finds its place in the index without a second search; checked before use (segments move).
   */
  private Segment lastFound;

  private int lastFoundAt;

  /** Whether changes are being kept for {@link #undo} (between {@link #beginUndo} and its end). */
  private boolean keepingUndo;

  /** The segments changed since {@link #beginUndo}, each as it was before its first change. */
  private final List<Saved> saved = new ArrayList<>();

  private long savedTotal;
  private long savedChanges;
  private boolean savedChanged;

  /** A segment's state before a command changed it. */
  private static final class Saved {
    final Segment segment;
    final byte[] payload;
    final int count;
    final int bytes;
    final boolean dirty;

    Saved(Segment segment) {
      this.segment = segment;
      this.payload = segment.payload;
      this.count = segment.count;
      this.bytes = segment.bytes;
      this.dirty = segment.dirty;
    }
  }

  private RangeBody(
      ValueType type, ChunkLoader loader, PageReader pageReader, RangeChunks.Index index) {
    this.type = type;
    this.loader = loader;
    this.pageReader = pageReader;
    this.index = index;
  }

  /** An empty collection (an absent key) of a type with a range-chunked form. */
  static RangeBody empty(ValueType type) {
    return new RangeBody(type, n -> null, (n, next) -> null, null);
  }

  /** A packed collection. */
  static RangeBody packed(ValueType type, byte[] payload) {
    RangeBody b = empty(type);
    RangeCodec codec = RangeCodec.of(type, false);
    b.segments.add(new Segment(-1, 0, codec.count(payload), payload.length, payload));
    b.total = b.segments.getFirst().count;
    return b;
  }

  /** A chunked collection whose chunks and index pages {@code loader} reads. */
  static RangeBody chunked(ValueType type, RangeChunks.Index index, ChunkLoader loader) {
    return chunked(type, index, loader, decodingPages(loader));
  }

  /** Reads index pages by decoding what {@code loader} reads. */
  static PageReader decodingPages(ChunkLoader loader) {
    return (number, nextNumber) -> {
      byte[] payload = loader.load(number);
      return payload == null ? null : RangeChunks.Index.decodePage(payload, nextNumber);
    };
  }

  /**
   * A chunked collection whose chunks {@code loader} reads and whose index pages {@code pages}
   * reads.
   */
  static RangeBody chunked(
      ValueType type, RangeChunks.Index index, ChunkLoader loader, PageReader pages) {
    RangeBody b = new RangeBody(type, loader, pages, index);
    for (int i = 0; i < index.entries(); i++) {
      Segment s = new Segment(index.number(i), index.low(i), index.count(i), index.bytes(i), null);
      s.pageChunks = index.pageChunks(i);
      if (s.isPage()) {
        b.pages++;
      }
      b.segments.add(s);
      b.total += s.count;
    }
    return b;
  }

  /** The codec of the segments: a chunk's (integer sets of any count) or a packed payload's. */
  private RangeCodec codec() {
    return RangeCodec.of(type, index != null);
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

  /** Returns the number of entries. */
  public int size() {
    return (int) Math.min(total, Integer.MAX_VALUE);
  }

  /** Returns the payload bytes of every segment together. */
  long bytes() {
    if (payloadBytes < 0) {
      long n = 0;
      for (Segment s : segments) {
        n += s.bytes;
      }
      payloadBytes = n;
    }
    return payloadBytes;
  }

  /** Returns whether an entry has that key (a set's member, a hash's field). */
  public boolean contains(byte[] key) {
    return get(key) != null;
  }

  /** Returns the value of the entry with that key (empty for a set's member), or null. */
  public byte[] get(byte[] key) {
    Segment s = segmentOf(ScanCursor.hash(key));
    return s == null || s.count == 0 ? null : codec().get(payload(s), key);
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
      segmentIndex.invalidate();
    }
    Segment s = segmentOf(ScanCursor.hash(key));
    RangeCodec codec = codec();
    byte[] p = s.count == 0 ? null : payload(s);
    byte[] next = codec.put(p, key, value);
    if (next == null) {
      return false; // a set's member already there, a hash's field already holding the value
    }
    int before = s.count;
    set(s, next);
    return s.count > before;
  }

  /** Removes the entry with that key; returns whether there was one. */
  public boolean remove(byte[] key) {
    Segment s = segmentOf(ScanCursor.hash(key));
    if (s == null || s.count == 0) {
      return false;
    }
    byte[] next = codec().remove(payload(s), key);
    if (next == null) {
      return false;
    }
    set(s, next);
    return true;
  }

  /**
   * Returns the entry at a position of the collection's order (segment by segment, each in its
   * payload's order), {@code {key, value}}, reading only the page and chunk that hold it.
   *
   * @param i a position, 0 to size - 1
   */
  public byte[][] entry(int i) {
    if (pages == 0 && i >= 0 && i < total) {
      if (!segmentIndex.valid()) {
        segmentIndex.build(segments);
      }
      long at = segmentIndex.find(i);
      return codec().entryAt(payload(segments.get((int) (at >>> 32))), (int) at);
    }
    for (int k = 0; k < segments.size(); k++) {
      Segment s = segments.get(k);
      if (i < s.count) {
        if (s.isPage()) {
          expand(k--);
          continue;
        }
        return codec().entryAt(payload(s), i);
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
    expandAll();
    List<byte[][]> out = new ArrayList<>(size());
    for (Segment s : segments) {
      if (s.count > 0) {
        out.addAll(codec().entries(payload(s)));
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
      if (s.isPage()) {
        expand(i--);
        continue;
      }
      if (s.count == 0) {
        continue;
      }
      for (byte[][] e : codec().entries(payload(s))) {
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
    return RangeCodec.of(type, false).encode(entries());
  }

  private byte[] payload(Segment s) {
    if (s.isPage()) {
      throw new IllegalStateException("an index page has no entries of its own");
    }
    if (s.payload == null) {
      byte[] p = loader.load(s.number);
      if (p == null) {
        throw new MissingChunk();
      }
      s.payload = p;
    }
    return s.payload;
  }

  private void set(Segment s, byte[] payload) {
    if (keepingUndo) {
      keep(s);
    }
    if (payloadBytes >= 0) {
      payloadBytes += payload.length - s.bytes;
    }
    s.payload = payload;
    int was = s.count;
    s.count = codec().count(payload);
    total += s.count - was;
    if (s.count != was && segmentIndex.valid()) {
      int at =
          lastFound == s && lastFoundAt < segments.size() && segments.get(lastFoundAt) == s
              ? lastFoundAt
              : positionOf(s.low);
      if (at >= 0 && segments.get(at) == s) {
        segmentIndex.add(at, s.count - was);
      } else {
        segmentIndex.invalidate();
      }
    }
    s.bytes = payload.length;
    s.dirty = true;
    changed = true;
    changes++;
    if (!s.touched) {
      s.touched = true;
      touched.add(s);
    }
  }

  /** Returns how many changes were made to it so far (growing with each change). */
  long changes() {
    return changes;
  }

  /**
   * Starts keeping what the changes to come replace, for {@link #undo}: an open collection's
   * command begins so. Only a body whose every page is read: a command then changes segments'
   * payloads and counts only (no page is expanded, no segment added or removed: splits and merges
   * run between commands).
   */
  void beginUndo() {
    keepingUndo = true;
    saved.clear();
    savedTotal = total;
    savedChanges = changes;
    savedChanged = changed;
  }

  /** Ends a command begun by {@link #beginUndo} that completed: its changes stay. */
  void endUndo() {
    keepingUndo = false;
    for (Saved k : saved) {
      k.segment.kept = false;
    }
    saved.clear();
  }

  /** Puts back what the changes since {@link #beginUndo} replaced, and ends keeping it. */
  void undo() {
    keepingUndo = false;
    for (int i = saved.size() - 1; i >= 0; i--) {
      Saved k = saved.get(i);
      k.segment.payload = k.payload;
      k.segment.count = k.count;
      k.segment.bytes = k.bytes;
      k.segment.dirty = k.dirty;
      k.segment.kept = false;
    }
    saved.clear();
    total = savedTotal;
    changes = savedChanges;
    changed = savedChanged;
    segmentIndex.invalidate();
    payloadBytes = -1;
  }

  /** Keeps a segment's state before the command's first change of it. */
  private void keep(Segment s) {
    if (!s.kept) {
      s.kept = true;
      saved.add(new Saved(s));
    }
  }

  /**
   * Reads every index page and every chunk, so that no later command reads the store: the form an
   * open collection keeps ({@link OpenCollections}).
   *
   * @throws MissingChunk if the store no longer holds a page or chunk
   */
  void loadAll() {
    expandAll();
    for (Segment s : segments) {
      if (s.count > 0) {
        payload(s);
      }
    }
  }

  /** Returns the number of segments (chunks, loose or listed by unread pages' entries). */
  int segmentCount() {
    return segments.size();
  }

  /**
   * Splits the segment the last change was made in if it grew past {@link #CHUNK_BYTES}, as {@link
   * #normalize} would: an open collection, changed by many commands before it is written, keeps its
   * segments chunk-sized so that a change copies one chunk, not a growing one.
   */
  void splitTouched() {
    for (Segment s : touched) {
      s.touched = false;
      if (s.bytes <= CHUNK_BYTES || index == null) {
        continue;
      }
      int at = positionOf(s.low);
      if (at >= 0 && segments.get(at) == s) {
        long known = payloadBytes;
        List<Segment> pieces = split(s, RangeCodec.of(type, true));
        segments.remove(at);
        segments.addAll(at, pieces);
        segmentIndex.replace(at, pieces); // kept, not rebuilt by a walk of every segment
        if (known >= 0) {
          known -= s.bytes;
          for (Segment piece : pieces) {
            known += piece.bytes;
          }
        }
        payloadBytes = known;
      }
    }
    touched.clear();
  }

  /**
   * The chunk whose range holds {@code hash} (an index page on the way is read and replaced by its
   * chunks), or null if there is none.
   */
  private Segment segmentOf(long hash) {
    while (true) {
      int at = positionOf(hash);
      if (at < 0) {
        return null;
      }
      Segment s = segments.get(at);
      if (!s.isPage()) {
        lastFound = s;
        lastFoundAt = at;
        return s;
      }
      expand(at);
    }
  }

  /** The position of the segment whose range holds {@code hash}, or -1 if there is none. */
  private int positionOf(long hash) {
    if (pages == 0 && segments.size() > HEAD_CHUNKS) {
      if (!segmentIndex.valid()) {
        segmentIndex.build(segments);
      }
      return segmentIndex.positionOf(hash);
    }
    int lo = 0;
    int hi = segments.size() - 1;
    if (hi < 0) {
      return -1;
    }
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (segments.get(mid).low <= hash) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /**
   * Replaces the index page at a position by the chunks it lists (not read yet), checking that they
   * are what the head says it lists.
   *
   * @throws MissingChunk if the store no longer holds the page
   * @throws IllegalArgumentException if the page is malformed or disagrees with its head entry
   */
  private void expand(int at) {
    Segment page = segments.get(at);
    RangeChunks.Index listed = pageReader.read(page.number, index.nextNumber());
    if (listed == null) {
      throw new MissingChunk();
    }
    long above = at + 1 < segments.size() ? segments.get(at + 1).low : 1L << 32;
    if (listed.total() != page.count
        || listed.entries() != page.pageChunks
        || listed.low(0) != page.low
        || listed.low(listed.entries() - 1) >= above) {
      throw new IllegalArgumentException("an index page's chunks differ from its head entry");
    }
    List<Segment> chunks = new ArrayList<>(listed.entries());
    for (int i = 0; i < listed.entries(); i++) {
      chunks.add(
          new Segment(listed.number(i), listed.low(i), listed.count(i), listed.bytes(i), null));
    }
    segments.remove(at);
    segments.addAll(at, chunks);
    segmentIndex.invalidate();
    payloadBytes = -1;
    pages--;
    expanded.add(page.number);
  }

  private void expandAll() {
    for (int i = 0; pages > 0 && i < segments.size(); i++) {
      if (segments.get(i).isPage()) {
        expand(i--);
      }
    }
  }

  /**
   * Brings the segments into the form they are written in: one packed segment, or chunks of at most
   * about {@link #CHUNK_BYTES} (split at hash boundaries), none empty, small changed ones merged
   * with a neighbouring chunk, in the chunk encoding; index pages not read stay as they are.
   *
   * @param packed whether the collection is written packed
   */
  void normalize(boolean packed) {
    segmentIndex.invalidate();
    payloadBytes = -1;
    if (packed) {
      if (segments.size() != 1 || wasChunked()) {
        Segment one = new Segment(-1, 0, 0, 0, null);
        byte[] whole = packedPayload();
        segments.clear();
        segments.add(one);
        setEncoded(one, whole, false);
      }
      return;
    }
    RangeCodec chunk = RangeCodec.of(type, true);
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      if (s.dirty && s.bytes > CHUNK_BYTES) {
        List<Segment> pieces = split(s, chunk);
        segments.remove(i);
        segments.addAll(i, pieces);
        i += pieces.size() - 1;
      }
    }
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      if (!s.isPage() && s.count == 0) {
        segments.remove(i--);
        drop(s);
      }
    }
    mergeSmall(chunk);
    if (segments.getFirst().isPage() && segments.getFirst().low != 0) {
      expand(0); // its first chunk takes the emptied range below it
    }
    segments.getFirst().low = 0;
    segmentIndex.invalidate();
    payloadBytes = -1;
  }

  /** Merges each small changed chunk with a neighbouring chunk when the two fit in one. */
  private void mergeSmall(RangeCodec chunk) {
    for (int i = 0; i + 1 < segments.size(); i++) {
      Segment a = segments.get(i);
      Segment b = segments.get(i + 1);
      if (!a.isPage()
          && !b.isPage()
          && (a.dirty || b.dirty)
          && (a.bytes < MERGE_BELOW || b.bytes < MERGE_BELOW)
          && a.bytes + b.bytes <= CHUNK_BYTES) {
        List<byte[][]> both = new ArrayList<>(chunk.entries(payload(a)));
        both.addAll(chunk.entries(payload(b)));
        setEncoded(a, chunk.encode(both), true);
        segments.remove(i + 1);
        segmentIndex.invalidate();
        drop(b);
        i--;
      }
    }
  }

  private void setEncoded(Segment s, byte[] payload, boolean asChunk) {
    segmentIndex.invalidate();
    payloadBytes = -1;
    s.payload = payload;
    s.count = RangeCodec.of(type, asChunk).count(payload);
    s.bytes = payload.length;
    s.dirty = true;
    changed = true;
  }

  /** Notes that a stored chunk left the collection: written back, it is removed from the store. */
  private void drop(Segment s) {
    if (s.number >= 0) {
      dropped.add(s.number);
    }
  }

  /**
   * Splits a segment into pieces of about half a chunk each, at key-hash boundaries (one piece if
   * every key has the same hash). The first piece keeps the segment's number and lowest hash.
   */
  private List<Segment> split(Segment s, RangeCodec chunk) {
    List<byte[][]> es = chunk.entries(payload(s));
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
        out.add(piece(out.isEmpty() ? s.number : -1, pieceLow, piece, chunk));
        piece = new ArrayList<>();
        pieceLow = hash;
      }
      piece.add(es.get(order[k]));
    }
    out.add(piece(out.isEmpty() ? s.number : -1, pieceLow, piece, chunk));
    return out;
  }

  /**
   * A new segment of these entries, not yet among the segments (so the index and the byte total
   * stay as they are: whoever puts it in its place keeps them).
   */
  private Segment piece(int number, long low, List<byte[][]> entries, RangeCodec chunk) {
    byte[] payload = chunk.encode(entries);
    Segment p = new Segment(number, low, chunk.count(payload), payload.length, payload);
    p.dirty = true;
    changed = true;
    return p;
  }

  /**
   * Writes a chunked collection back, after {@link #normalize}: gives fresh chunks their numbers,
   * stores the chunks changed and the index pages made, and returns the head's index. Up to {@link
   * #HEAD_CHUNKS} chunks are listed in the head; more are listed in pages, as the class notes say.
   *
   * @param head an empty index of the collection's id and next number, filled in
   * @param store where the chunks and pages go
   * @return {@code head}
   */
  RangeChunks.Index write(RangeChunks.Index head, ChunkWriter store) {
    if (chunkCount() <= HEAD_CHUNKS) {
      expandAll();
    } else {
      foldIntoNeighbours();
    }
    for (Segment s : segments) {
      if (s.isPage()) {
        continue;
      }
      boolean fresh = s.number < 0;
      if (fresh) {
        s.number = head.takeNumber();
      }
      if (s.dirty || fresh) {
        store.put(s.number, payload(s), fresh);
      }
    }
    if (pages == 0 && segments.size() <= HEAD_CHUNKS) {
      for (Segment s : segments) {
        head.add(s.number, s.low, s.count, s.bytes);
      }
      return head;
    }
    for (int i = 0; i < segments.size(); ) {
      Segment s = segments.get(i);
      if (s.isPage()) {
        head.addPage(s.number, s.low, s.count, s.bytes, s.pageChunks);
        i++;
        continue;
      }
      int j = i;
      while (j < segments.size() && !segments.get(j).isPage()) {
        j++;
      }
      writePages(i, j, head, store);
      i = j;
    }
    return head;
  }

  /** The chunks of the collection: its loose chunks and those its unread pages list. */
  private long chunkCount() {
    long n = 0;
    for (Segment s : segments) {
      n += s.isPage() ? s.pageChunks : 1;
    }
    return n;
  }

  /**
   * Reads the index page beside a short run of chunks when the two fit in one page, so that a page
   * that shrank joins its neighbour instead of staying small.
   */
  private void foldIntoNeighbours() {
    for (int i = 0; pages > 0 && i < segments.size(); ) {
      if (segments.get(i).isPage()) {
        i++;
        continue;
      }
      int j = i;
      while (j < segments.size() && !segments.get(j).isPage()) {
        j++;
      }
      int run = j - i;
      if (run < PAGE_FOLD_BELOW) {
        if (j < segments.size() && segments.get(j).pageChunks + run <= PAGE_CHUNKS) {
          expand(j);
          continue;
        }
        if (i > 0 && segments.get(i - 1).pageChunks + run <= PAGE_CHUNKS) {
          expand(i - 1);
          i = 0; // the run now starts earlier: look again from the start
          continue;
        }
      }
      i = j;
    }
  }

  /** Lists the chunks at positions {@code from} to {@code to} (exclusive) in fresh pages. */
  private void writePages(int from, int to, RangeChunks.Index head, ChunkWriter store) {
    int length = to - from;
    int count = (length + PAGE_CHUNKS - 1) / PAGE_CHUNKS;
    for (int p = 0, at = from; p < count; p++) {
      int end = from + (int) ((long) length * (p + 1) / count);
      RangeChunks.Index listed = new RangeChunks.Index(0, head.nextNumber(), end - at);
      long entries = 0;
      long bytes = 0;
      for (int k = at; k < end; k++) {
        Segment c = segments.get(k);
        listed.add(c.number, c.low, c.count, c.bytes);
        entries += c.count;
        bytes += c.bytes;
      }
      int number = head.takeNumber();
      store.put(number, listed.encodePage(), true);
      made.add(number);
      madePages.add(listed);
      head.addPage(
          number,
          segments.get(at).low,
          (int) Math.min(entries, Integer.MAX_VALUE),
          (int) Math.min(bytes, Integer.MAX_VALUE),
          end - at);
      at = end;
    }
  }

  /**
   * Names the index pages the write-back made, each with the chunks it lists (an index not to be
   * changed).
   *
   * @param visit given each page and its number
   */
  void madePages(ObjIntConsumer<RangeChunks.Index> visit) {
    for (int i = 0; i < made.size(); i++) {
      visit.accept(madePages.get(i), made.get(i));
    }
  }

  /**
   * Names what a write-back leaves unused, to remove once the new head is in place: the chunks the
   * command removed and the pages it read (their chunks now listed in fresh pages or the head).
   *
   * @param remove given each number to remove
   */
  void removed(IntConsumer remove) {
    dropped.forEach(remove::accept);
    expanded.forEach(remove::accept);
  }
}
