package dev.larder.server.internal.keyspace;

import dev.larder.server.internal.keyspace.ZSetChunks.Ref;
import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.function.Predicate;

/**
 * One side of a chunked sorted set being read or changed by one command ({@link ZSetBody}): its
 * entries in one order, in chunks listed by index pages that the head lists ({@link ZSetChunks}).
 * Pages and chunks are read from the store only when the command reaches them.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>An entry is found by a binary search of the head's page refs by their low entries, then of the
 * page's chunk refs, then of the chunk: one page and one chunk read. A rank is found by the refs'
 * counts the same way. The side keeps its invariants after every change: no empty chunk or page (an
 * emptied one is dropped), every ref's low entry its first entry, and no chunk above {@link
 * #CHUNK_BYTES} or page above {@link #PAGE_CHUNKS} chunks (one is split as soon as it passes: at
 * the end of the side, where appends in order go, the full chunk or page is kept and the new one
 * starts with the last entry or chunk, so a set filled in order is packed full; elsewhere it is
 * halved). When written back ({@link #normalize}), a small changed chunk is merged with a neighbour
 * in its page and a small changed page with a neighbour page.
 *
 * <p>A chunk a lookup, an insert or a removal reaches stays in its stored form ({@link Chunk#buf},
 * a {@link ZSetChunkBuffer}: its entries' bytes with their offsets and, on the by-member side,
 * their member hashes): it is binary-searched in place and an entry is spliced in place (bytes
 * shifted within the buffer, which an open set's chunks keep with room), and written back as it is;
 * the entry at a rank (a pop's) is read in place too. Its entries are decoded into a list only when
 * something needs them as one (a rank search, a range, a split or merge); from then on the chunk is
 * changed as a list and encoded when written.
 *
 * <p>Chunks keep their numbers when rewritten (overwritten in place); a changed page is written
 * under a fresh number (see {@link ZSetChunks}); numbers the side stops using are collected in
 * {@link #dropped}, to remove once the new head is in place.
 *
 * <p>Not thread-safe: one command's, under its key's stripe.
 */
final class ZSetSide {
  /** A chunk whose payload passes this is split. */
  static final int CHUNK_BYTES = 4096;

  /** A changed chunk below this is merged with a neighbour if the two fit in a chunk. */
  static final int MERGE_BELOW = 1024;

  /**
   * The most chunks a page lists (a page of about 1.5 KiB for members of about 10 bytes): every
   * change rewrites a page of each side it touches and the head, whose refs are one per page, so
   * this balances the two for sets of up to a few million members.
   */
  static final int PAGE_CHUNKS = 64;

  /** How full a chunk a conversion makes is filled: room for a few inserts before a split. */
  static final int CHUNK_FILL = 3072;

  /** How many chunks a page a conversion makes lists. */
  static final int PAGE_FILL = 48;

  /** An order of entries: compares an entry with a key (a score and a member). */
  @FunctionalInterface
  interface Order {
    int compare(Entry e, double score, byte[] member);
  }

  /** Redis's order: score (-0 equal to 0), then member bytes. */
  static final Order BY_SCORE =
      (e, score, member) -> {
        int c = ZSetPayload.compareScores(e.score(), score);
        return c != 0 ? c : Arrays.compareUnsigned(e.member(), member);
      };

  /** ZSCAN's order: member hash ({@link ScanCursor#hash}), then member bytes; scores ignored. */
  static final Order BY_MEMBER =
      (e, score, member) -> {
        int c = Long.compare(ScanCursor.hash(e.member()), ScanCursor.hash(member));
        return c != 0 ? c : Arrays.compareUnsigned(e.member(), member);
      };

  static final class Chunk {
    int number;
    int count;
    int bytes;
    Entry low;
    List<Entry> entries;
    boolean dirty;

    /**
     * The chunk's entries in their stored bytes while it has no entry list: a command that only
     * finds, adds or removes an entry searches and splices these bytes in place instead of decoding
     * the chunk into entries and encoding it again. Null once {@link #entries} is made (from it).
     */
    ZSetChunkBuffer buf;

    /** The low entry {@link #lowHash} is of (a by-member side's searches hash each low once). */
    Entry hashedLow;

    long lowHash;

    Chunk(int number, int count, int bytes, Entry low) {
      this.number = number;
      this.count = count;
      this.bytes = bytes;
      this.low = low;
    }
  }

  static final class Page {
    int number;
    int count;
    long bytes;
    Entry low;
    List<Chunk> chunks;
    boolean dirty;

    /**
     * Its chunks' low entries' search keys ({@link ZSetSide#keyOf}), at the chunks' positions; null
     * until a search needs them after the chunk list changed.
     */
    long[] lowKeys;

    /** The low entry {@link #lowHash} is of (a by-member side's searches hash each low once). */
    Entry hashedLow;

    long lowHash;

    Page(int number, int count, long bytes, Entry low) {
      this.number = number;
      this.count = count;
      this.bytes = bytes;
      this.low = low;
    }
  }

  /** A position: page, chunk in it, entry in it (where it would go if not found). */
  private record Pos(int page, int chunk, int at, boolean found) {}

  /** Reads a chunked set's index pages, decoded ({@link ZSetStore} keeps a few). */
  @FunctionalInterface
  interface PageReader {
    /**
     * Returns the chunk refs the index page of that number lists (a list not to be changed), or
     * null if the store does not hold the page.
     *
     * @param number the page's number
     * @param nextNumber the head's next number, above every number listed
     * @throws IllegalArgumentException if the page is malformed
     */
    List<Ref> read(int number, int nextNumber);
  }

  /** Reads index pages by decoding what {@code loader} reads. */
  static PageReader decodingPages(ChunkLoader loader) {
    return (number, nextNumber) -> {
      byte[] payload = loader.load(number);
      return payload == null ? null : ZSetChunks.decodePage(payload, nextNumber);
    };
  }

  /** Given each index page a write-back made: its number and chunk refs (not to be changed). */
  @FunctionalInterface
  interface MadePage {
    void accept(int number, List<Ref> chunks);
  }

  private final Order order;
  private final ChunkLoader loader;
  private final PageReader pageReader;
  private final int nextNumber;
  private final List<Page> pages = new ArrayList<>();
  private final List<Integer> dropped = new ArrayList<>();

  /**
   * Whether its chunks' buffers keep room for splices in place: an open set's ({@link #loadAll}).
   */
  private boolean slack;

  /** The bytes its payload-form chunks' buffers hold, room included. */
  private long held;

  /**
   * Its pages' low entries' search keys ({@link #keyOf}), at the pages' positions; null until a
   * search needs them after the page list changed.
   */
  private long[] pageKeys;

  /**
   * Chunks turned into entry lists (decoded, or made as lists by an insert or a split) since the
   * last {@link #settle}: what it encodes back into the payload form.
   */
  private final List<Chunk> listed = new ArrayList<>();

  private ZSetSide(Order order, ChunkLoader loader, PageReader pageReader, int nextNumber) {
    this.order = order;
    this.loader = loader;
    this.pageReader = pageReader;
    this.nextNumber = nextNumber;
  }

  /**
   * A stored side: its pages as the head lists them, read through {@code pageReader}, and their
   * chunks through {@code loader}.
   */
  static ZSetSide stored(
      Order order, List<Ref> pages, ChunkLoader loader, PageReader pageReader, int nextNumber) {
    ZSetSide side = new ZSetSide(order, loader, pageReader, nextNumber);
    for (Ref r : pages) {
      side.pages.add(new Page(r.number(), r.count(), r.bytes(), r.low()));
    }
    return side;
  }

  /** A side of these entries, all fresh (never stored). */
  static ZSetSide build(Order order, List<Entry> entries) {
    List<Entry> sorted = new ArrayList<>(entries);
    sorted.sort((a, b) -> order.compare(a, b.score(), b.member()));
    ZSetSide side = new ZSetSide(order, n -> null, (n, next) -> null, Integer.MAX_VALUE);
    Page page = null;
    List<Entry> piece = new ArrayList<>();
    int bytes = 0;
    for (int i = 0; i <= sorted.size(); i++) {
      Entry e = i < sorted.size() ? sorted.get(i) : null;
      if (!piece.isEmpty() && (e == null || bytes + ZSetChunks.entrySize(e) > CHUNK_FILL)) {
        if (page == null || page.chunks.size() == PAGE_FILL) {
          page = new Page(-1, 0, 0, null);
          page.chunks = new ArrayList<>();
          side.pages.add(page);
        }
        Chunk c = new Chunk(-1, 0, 0, null);
        c.entries = piece;
        refresh(c);
        page.chunks.add(c);
        refresh(page);
        piece = new ArrayList<>();
        bytes = 0;
      }
      if (e != null) {
        piece.add(e);
        bytes += ZSetChunks.entrySize(e);
      }
    }
    return side;
  }

  /** Returns the number of entries. */
  long size() {
    long n = 0;
    for (Page p : pages) {
      n += p.count;
    }
    return n;
  }

  /** Returns the payload bytes of its chunks together. */
  long bytes() {
    long n = 0;
    for (Page p : pages) {
      n += p.bytes;
    }
    return n;
  }

  /**
   * Returns the bytes its payload-form chunks hold in memory: their buffers with their room, entry
   * offsets and (by-member side) member hashes; a running total.
   */
  long heldBytes() {
    return held;
  }

  /** Returns the stored numbers it no longer uses (filled in as it changes and is written). */
  List<Integer> dropped() {
    return dropped;
  }

  private Page page(int i) {
    Page p = pages.get(i);
    if (p.chunks == null) {
      List<Ref> refs = pageReader.read(p.number, nextNumber);
      if (refs == null) {
        throw new MissingChunk();
      }
      List<Chunk> chunks = new ArrayList<>(refs.size());
      long count = 0;
      for (Ref r : refs) {
        chunks.add(new Chunk(r.number(), r.count(), r.bytes(), r.low()));
        count += r.count();
      }
      if (count != p.count) {
        throw new IllegalArgumentException("a sorted-set index page's chunks differ from its ref");
      }
      p.chunks = chunks;
    }
    return p;
  }

  private List<Entry> entries(Chunk c) {
    if (c.entries == null) {
      List<Entry> es;
      if (c.buf != null) {
        es = c.buf.entries();
        held -= c.buf.heldBytes();
        c.buf = null;
      } else {
        byte[] payload = loader.load(c.number);
        if (payload == null) {
          throw new MissingChunk();
        }
        es = ZSetChunks.decodeChunk(payload);
        if (es.size() != c.count) {
          throw new IllegalArgumentException("a sorted-set chunk differs from its ref");
        }
      }
      c.entries = es; // a fresh, mutable list
      listed.add(c);
    }
    return c.entries;
  }

  /**
   * Makes sure a chunk is read, as its payload unless its entry list is made already.
   *
   * @return whether it is in the payload form ({@link Chunk#buf})
   */
  private boolean rawForm(Chunk c) {
    if (c.entries != null) {
      return false;
    }
    if (c.buf == null) {
      byte[] payload = loader.load(c.number);
      if (payload == null) {
        throw new MissingChunk();
      }
      hold(c, payload, c.count);
    }
    return true;
  }

  /** Keeps a chunk in the payload form, as these bytes (owned from now on). */
  @SuppressWarnings("ReferenceEquality") // the two orders are constants, known by identity
  private void hold(Chunk c, byte[] payload, int count) {
    c.buf = ZSetChunkBuffer.of(payload, count, slack && order == BY_MEMBER, slack);
    held += c.buf.heldBytes();
  }

  /** Returns a read chunk's entry at a position, in either form. */
  private static Entry entryAt(Chunk c, int at) {
    return c.entries != null ? c.entries.get(at) : c.buf.entryAt(at);
  }

  /**
   * Compares entry {@code at} of a payload-form chunk with a key, in this side's order, without
   * decoding it: on the by-member side by the member hash kept beside the entry.
   */
  @SuppressWarnings("ReferenceEquality") // the two orders are constants, known by identity
  private int compareAt(ZSetChunkBuffer b, int at, double score, byte[] member, long keyHash) {
    int c;
    if (order == BY_MEMBER) {
      c = Integer.compareUnsigned(b.hashAt(at), (int) keyHash);
    } else if (order == BY_SCORE) {
      c = ZSetPayload.compareScores(b.scoreAt(at), score);
    } else {
      return order.compare(b.entryAt(at), score, member);
    }
    return c != 0 ? c : b.compareMember(at, member);
  }

  /**
   * Replaces the entries {@code at} to {@code at + removed} (exclusive) of a payload-form chunk
   * with {@code inserted} (none if null), in place where its buffer has room.
   */
  private void splice(Chunk c, int at, int removed, Entry inserted) {
    held -= c.buf.heldBytes();
    c.buf.splice(at, removed, inserted);
    held += c.buf.heldBytes();
  }

  /** Compares a low entry with a key, on the by-member side by the low's hash kept beside it. */
  @SuppressWarnings("ReferenceEquality") // the two orders are constants, known by identity
  private int compareLow(Entry low, long lowHash, double score, byte[] member, long keyHash) {
    if (order != BY_MEMBER) {
      return order.compare(low, score, member);
    }
    int c = Long.compare(lowHash, keyHash);
    return c != 0 ? c : Arrays.compareUnsigned(low.member(), member);
  }

  /** A page's low entry's member hash, computed once per low. */
  @SuppressWarnings("ReferenceEquality") // the very entry hashed: a cache by identity
  private static long lowHash(Page p) {
    if (p.hashedLow != p.low) {
      p.lowHash = ScanCursor.hash(p.low.member());
      p.hashedLow = p.low;
    }
    return p.lowHash;
  }

  /** A chunk's low entry's member hash, computed once per low. */
  @SuppressWarnings("ReferenceEquality") // the very entry hashed: a cache by identity
  private static long lowHash(Chunk c) {
    if (c.hashedLow != c.low) {
      c.lowHash = ScanCursor.hash(c.low.member());
      c.hashedLow = c.low;
    }
    return c.lowHash;
  }

  /**
   * An entry's search key in this side's order, as a long compared signed: on the by-score side its
   * score's bits made to sort as the scores do (-0 as 0), on the by-member side its member hash.
   * Keys in order are in the side's order; equal keys need the entries compared.
   */
  @SuppressWarnings("ReferenceEquality") // the two orders are constants, known by identity
  private long keyOf(double score, byte[] member) {
    if (order == BY_MEMBER) {
      return ScanCursor.hash(member);
    }
    long bits = Double.doubleToRawLongBits(score == 0 ? 0.0 : score);
    return bits ^ ((bits >> 63) & Long.MAX_VALUE);
  }

  private long keyOf(Entry e) {
    return keyOf(e.score(), e.member());
  }

  private long[] pageKeys() {
    if (pageKeys == null) {
      pageKeys = new long[pages.size()];
      for (int i = 0; i < pageKeys.length; i++) {
        pageKeys[i] = keyOf(pages.get(i).low);
      }
    }
    return pageKeys;
  }

  private long[] lowKeys(Page p) {
    if (p.lowKeys == null) {
      long[] keys = new long[p.chunks.size()];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = keyOf(p.chunks.get(i).low);
      }
      p.lowKeys = keys;
    }
    return p.lowKeys;
  }

  /**
   * The last position whose low is at or below the key (0 if none is), by the lows' search keys,
   * the lows themselves compared only where a key equals the key's.
   */
  private static int lastAtOrBelow(long[] keys, long key, IntUnaryOperator compareLow) {
    int lo = 0;
    int hi = keys.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      long k = keys[mid];
      if (k < key || (k == key && compareLow.applyAsInt(mid) <= 0)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Where the key is or would go; the side is not empty. */
  @SuppressWarnings("ReferenceEquality") // the two orders are constants, known by identity
  private Pos locate(double score, byte[] member) {
    boolean hashed = order == BY_MEMBER;
    long key = keyOf(score, member);
    long keyHash = hashed ? key : 0;
    int pi =
        lastAtOrBelow(
            pageKeys(),
            key,
            i -> {
              Page q = pages.get(i);
              return compareLow(q.low, hashed ? lowHash(q) : 0, score, member, keyHash);
            });
    Page p = page(pi);
    int ci =
        lastAtOrBelow(
            lowKeys(p),
            key,
            i -> {
              Chunk q = p.chunks.get(i);
              return compareLow(q.low, hashed ? lowHash(q) : 0, score, member, keyHash);
            });
    Chunk chunk = p.chunks.get(ci);
    if (rawForm(chunk)) {
      int lo = 0;
      int hi = chunk.count - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = compareAt(chunk.buf, mid, score, member, keyHash);
        if (c < 0) {
          lo = mid + 1;
        } else if (c > 0) {
          hi = mid - 1;
        } else {
          return new Pos(pi, ci, mid, true);
        }
      }
      return new Pos(pi, ci, lo, false);
    }
    List<Entry> es = chunk.entries;
    int lo = 0;
    int hi = es.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = order.compare(es.get(mid), score, member);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return new Pos(pi, ci, mid, true);
      }
    }
    return new Pos(pi, ci, lo, false);
  }

  /**
   * Returns the entry equal to the key in this side's order (the by-member side: of that member),
   * or null.
   */
  Entry find(double score, byte[] member) {
    if (pages.isEmpty()) {
      return null;
    }
    Pos pos = locate(score, member);
    return pos.found() ? entryAt(chunkAt(pos), pos.at()) : null;
  }

  private Chunk chunkAt(Pos pos) {
    return pages.get(pos.page()).chunks.get(pos.chunk());
  }

  /** Returns the rank of the entry equal to the key, or -1 if there is none. */
  long rank(double score, byte[] member) {
    if (pages.isEmpty()) {
      return -1;
    }
    Pos pos = locate(score, member);
    return pos.found() ? rankOf(pos.page(), pos.chunk()) + pos.at() : -1;
  }

  /** The rank of a chunk's first entry. */
  private long rankOf(int pi, int ci) {
    long rank = 0;
    for (int i = 0; i < pi; i++) {
      rank += pages.get(i).count;
    }
    List<Chunk> chunks = pages.get(pi).chunks;
    for (int i = 0; i < ci; i++) {
      rank += chunks.get(i).count;
    }
    return rank;
  }

  /**
   * Puts an entry: adds it, or replaces the entry equal to it in this side's order (the by-member
   * side: the member's entry, with another score).
   *
   * @return the entry replaced, or null if it was added
   */
  Entry put(Entry e) {
    if (pages.isEmpty()) {
      Chunk c = new Chunk(-1, 0, 0, null);
      c.entries = new ArrayList<>(List.of(e));
      refresh(c);
      listed.add(c);
      Page p = new Page(-1, 0, 0, null);
      p.chunks = new ArrayList<>(List.of(c));
      refresh(p);
      pages.add(p);
      pageKeys = null;
      return null;
    }
    Pos pos = locate(e.score(), e.member());
    Page p = pages.get(pos.page());
    Chunk c = chunkAt(pos);
    if (c.entries == null) {
      return putRaw(pos, p, c, e);
    }
    if (pos.found()) {
      Entry old = c.entries.set(pos.at(), e);
      c.dirty = true;
      if (pos.at() == 0) {
        setLows(pos.page(), pos.chunk());
      }
      return old;
    }
    c.entries.add(pos.at(), e);
    resize(p, c, 1, ZSetChunks.entrySize(e));
    if (pos.at() == 0) {
      setLows(pos.page(), pos.chunk());
    }
    if (c.bytes > CHUNK_BYTES && c.count > 1) {
      split(pos.page(), pos.chunk(), pos.at());
    }
    return null;
  }

  /** {@link #put} into a chunk in the payload form. */
  private Entry putRaw(Pos pos, Page p, Chunk c, Entry e) {
    Entry old = null;
    if (pos.found()) {
      old = entryAt(c, pos.at());
      splice(c, pos.at(), 1, e);
      // An entry equal in this order has the same member, so the same size: the chunk's ref is
      // unchanged and so is its page (unless the low entry changed, below).
      int grown = ZSetChunks.entrySize(e) - ZSetChunks.entrySize(old);
      if (grown != 0) {
        resize(p, c, 0, grown);
      }
      c.dirty = true;
    } else {
      splice(c, pos.at(), 0, e);
      resize(p, c, 1, ZSetChunks.entrySize(e));
    }
    if (pos.at() == 0) {
      setLows(pos.page(), pos.chunk());
    }
    if (old == null && c.bytes > CHUNK_BYTES && c.count > 1) {
      split(pos.page(), pos.chunk(), pos.at());
    }
    return old;
  }

  /**
   * Removes the entry equal to the key in this side's order.
   *
   * @return the entry removed, or null if there was none
   */
  Entry remove(double score, byte[] member) {
    if (pages.isEmpty()) {
      return null;
    }
    Pos pos = locate(score, member);
    if (!pos.found()) {
      return null;
    }
    Page p = pages.get(pos.page());
    Chunk c = chunkAt(pos);
    Entry old;
    if (c.entries == null && c.count > 1) {
      old = entryAt(c, pos.at());
      splice(c, pos.at(), 1, null);
    } else {
      old = entries(c).remove(pos.at());
    }
    resize(p, c, -1, -ZSetChunks.entrySize(old));
    if (c.count == 0) {
      p.chunks.remove(pos.chunk());
      p.lowKeys = null;
      pageKeys = null;
      p.bytes -= c.bytes;
      drop(c.number);
      if (p.chunks.isEmpty()) {
        pages.remove(pos.page());
        drop(p.number);
        return old;
      }
      p.low = p.chunks.getFirst().low;
    } else if (pos.at() == 0) {
      setLows(pos.page(), pos.chunk());
    }
    return old;
  }

  /** Returns the entry at a rank, 0 to size - 1. */
  Entry at(long rank) {
    for (int pi = 0; pi < pages.size(); pi++) {
      Page p = pages.get(pi);
      if (rank >= p.count) {
        rank -= p.count;
        continue;
      }
      page(pi);
      for (Chunk c : p.chunks) {
        if (rank < c.count) {
          rawForm(c); // read in place if not decoded: ZPOPMIN's entry, then spliced out
          return entryAt(c, (int) rank);
        }
        rank -= c.count;
      }
    }
    throw new IndexOutOfBoundsException("no entry at that rank");
  }

  /** Returns the entries from rank {@code from} to {@code to} inclusive, in order. */
  List<Entry> range(long from, long to) {
    List<Entry> out = new ArrayList<>((int) Math.min(to - from + 1, 1024));
    long first = 0;
    for (int pi = 0; pi < pages.size() && first <= to; pi++) {
      Page p = pages.get(pi);
      if (first + p.count <= from) {
        first += p.count;
        continue;
      }
      page(pi);
      for (Chunk c : p.chunks) {
        long last = first + c.count - 1;
        if (last >= from && first <= to) {
          int a = (int) (Math.max(from, first) - first);
          int b = (int) (Math.min(to, last) - first);
          boolean inPlace = rawForm(c); // read in place: not decoded, nothing to settle after
          for (int i = a; i <= b; i++) {
            out.add(inPlace ? c.buf.entryAt(i) : c.entries.get(i));
          }
        }
        first = last + 1;
        if (first > to) {
          break;
        }
      }
    }
    return out;
  }

  /**
   * Returns the first rank at which a predicate, false then true along the order, holds (the size
   * if it never does), reading one page and one chunk.
   */
  long firstRank(Predicate<Entry> holds) {
    if (pages.isEmpty() || holds.test(pages.getFirst().low)) {
      return 0;
    }
    int pi = lastNotHolding(pages.size(), i -> pages.get(i).low, holds);
    Page p = page(pi);
    int ci = lastNotHolding(p.chunks.size(), i -> p.chunks.get(i).low, holds);
    Chunk c = p.chunks.get(ci);
    rawForm(c); // searched in place if not decoded
    int lo = 1;
    int hi = c.count;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (holds.test(entryAt(c, mid))) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return rankOf(pi, ci) + lo;
  }

  /** The last of the lows where the predicate does not hold; the first does not. */
  private static int lastNotHolding(
      int size, java.util.function.IntFunction<Entry> low, Predicate<Entry> holds) {
    int lo = 0;
    int hi = size - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (!holds.test(low.apply(mid))) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /**
   * Collects one ZSCAN page on the by-member side: the entries whose member hash is at least {@code
   * cursor}, chunk by chunk from the one that holds it, until {@code count} entries have been
   * looked at, never stopping inside a run of equal hashes.
   *
   * @return the next cursor, 0 when the scan is complete
   */
  long scan(long cursor, int count, Predicate<byte[]> matches, List<Entry> page) {
    if (pages.isEmpty()) {
      return 0;
    }
    Predicate<Entry> atCursor = e -> ScanCursor.hash(e.member()) >= cursor;
    int pi = 0;
    int ci = 0;
    if (!atCursor.test(pages.getFirst().low)) {
      pi = lastNotHolding(pages.size(), i -> pages.get(i).low, atCursor);
      Page p = page(pi);
      ci = lastNotHolding(p.chunks.size(), i -> p.chunks.get(i).low, atCursor);
    }
    ScanCursor scan = new ScanCursor(cursor, count);
    java.util.IdentityHashMap<byte[], Entry> offered = new java.util.IdentityHashMap<>();
    int seen = 0;
    long lastHash = -1;
    while (pi < pages.size()) {
      Page p = page(pi);
      if (ci >= p.chunks.size()) {
        pi++;
        ci = 0;
        continue;
      }
      Entry next = p.chunks.get(ci).low;
      if (seen >= count && ScanCursor.hash(next.member()) > lastHash) {
        break;
      }
      for (Entry e : entries(p.chunks.get(ci))) {
        long h = ScanCursor.hash(e.member());
        if (h >= cursor) {
          seen++;
          lastHash = h;
          if (matches.test(e.member())) {
            scan.offer(e.member());
            offered.put(e.member(), e);
          }
        }
      }
      ci++;
    }
    List<byte[]> members = new ArrayList<>();
    long nextCursor = scan.finish(members);
    for (byte[] m : members) {
      page.add(offered.get(m));
    }
    if (nextCursor == 0 && pi < pages.size()) {
      // every entry below the next chunk's low hash was looked at: go on from there
      return ScanCursor.hash(pages.get(pi).chunks.get(ci).low.member());
    }
    return nextCursor;
  }

  /**
   * Reads every page, and every chunk in its payload form: an open set's side ({@link
   * OpenCollections}), which reads the store no more.
   */
  void loadAll() {
    slack = true;
    for (int pi = 0; pi < pages.size(); pi++) {
      for (Chunk c : page(pi).chunks) {
        rawForm(c);
      }
    }
  }

  /**
   * Encodes the chunks turned into entry lists since the last call back into their payload form
   * (dirty as they were): an open set's chunks stay compact between its commands, and the next
   * command splices them in place again.
   */
  void settle() {
    for (Chunk c : listed) {
      if (c.entries != null && !c.entries.isEmpty()) {
        hold(c, ZSetChunks.encodeChunk(c.entries), c.entries.size());
        c.entries = null;
      }
    }
    listed.clear();
  }

  /** Returns the number of its chunks and pages (a page not read counts as one). */
  int segmentCount() {
    int n = pages.size();
    for (Page p : pages) {
      n += p.chunks == null ? 0 : p.chunks.size();
    }
    return n;
  }

  /** Returns every entry, in order (reading every page and chunk). */
  List<Entry> all() {
    List<Entry> out = new ArrayList<>((int) Math.min(size(), Integer.MAX_VALUE));
    for (int pi = 0; pi < pages.size(); pi++) {
      for (Chunk c : page(pi).chunks) {
        out.addAll(rawForm(c) ? c.buf.entries() : c.entries);
      }
    }
    return out;
  }

  private void drop(int number) {
    if (number >= 0) {
      dropped.add(number);
    }
  }

  /** Changes a chunk's count and entry bytes, and its page's. */
  private static void resize(Page p, Chunk c, int entries, int entryBytes) {
    int before = c.bytes;
    int sum = before - 1 - Varint.size(c.count) + entryBytes;
    c.count += entries;
    c.bytes = 1 + Varint.size(c.count) + sum;
    c.dirty = true;
    p.count += entries;
    p.bytes += c.bytes - before;
    p.dirty = true;
  }

  /** Sets a chunk's low entry to its first, and its page's to its first chunk's. */
  private void setLows(int pi, int ci) {
    Page p = pages.get(pi);
    Chunk c = p.chunks.get(ci);
    c.low = entryAt(c, 0);
    if (p.lowKeys != null) {
      p.lowKeys[ci] = keyOf(c.low);
    }
    p.low = p.chunks.getFirst().low;
    if (pageKeys != null && ci == 0) {
      pageKeys[pi] = keyOf(p.low);
    }
    p.dirty = true;
  }

  /** Recomputes a loaded chunk's count, bytes and low entry from its entries. */
  private static void refresh(Chunk c) {
    int sum = 0;
    for (Entry e : c.entries) {
      sum += ZSetChunks.entrySize(e);
    }
    c.count = c.entries.size();
    c.bytes = 1 + Varint.size(c.count) + sum;
    c.low = c.entries.getFirst();
    c.dirty = true;
  }

  /** Recomputes a loaded page's count, bytes and low entry from its chunks. */
  private static void refresh(Page p) {
    int count = 0;
    long bytes = 0;
    for (Chunk c : p.chunks) {
      count += c.count;
      bytes += c.bytes;
    }
    p.count = count;
    p.bytes = bytes;
    p.low = p.chunks.getFirst().low;
    p.dirty = true;
  }

  /**
   * Splits a chunk that passed {@link #CHUNK_BYTES} after an insertion at {@code at}: at an end of
   * the side, off the entry inserted there; elsewhere into halves by bytes.
   */
  private void split(int pi, int ci, int at) {
    Page p = pages.get(pi);
    Chunk c = p.chunks.get(ci);
    List<Entry> es = entries(c);
    int cut;
    boolean lastOfSide = pi == pages.size() - 1 && ci == p.chunks.size() - 1;
    if (lastOfSide && at == es.size() - 1) {
      cut = es.size() - 1;
    } else if (pi == 0 && ci == 0 && at == 0) {
      cut = 1;
    } else {
      int half = c.bytes / 2;
      int sum = 0;
      cut = 0;
      while (cut < es.size() - 1 && sum < half) {
        sum += ZSetChunks.entrySize(es.get(cut++));
      }
      cut = Math.max(1, cut);
    }
    Chunk rest = new Chunk(-1, 0, 0, null);
    rest.entries = new ArrayList<>(es.subList(cut, es.size()));
    c.entries = new ArrayList<>(es.subList(0, cut));
    refresh(c);
    refresh(rest);
    listed.add(rest);
    p.chunks.add(ci + 1, rest);
    refresh(p);
    p.lowKeys = null;
    pageKeys = null;
    if (p.chunks.size() > PAGE_CHUNKS) {
      splitPage(pi, ci + 1);
    }
  }

  /** Splits a page that passed {@link #PAGE_CHUNKS}, as {@link #split} splits a chunk. */
  private void splitPage(int pi, int newChunk) {
    Page p = pages.get(pi);
    List<Chunk> cs = p.chunks;
    int cut;
    if (pi == pages.size() - 1 && newChunk == cs.size() - 1) {
      cut = cs.size() - 1;
    } else if (pi == 0 && newChunk <= 1) {
      cut = 1;
    } else {
      cut = cs.size() / 2;
    }
    Page rest = new Page(-1, 0, 0, null);
    rest.chunks = new ArrayList<>(cs.subList(cut, cs.size()));
    p.chunks = new ArrayList<>(cs.subList(0, cut));
    refresh(p);
    refresh(rest);
    pages.add(pi + 1, rest);
    p.lowKeys = null;
    pageKeys = null;
  }

  /**
   * Merges small changed chunks with a neighbour in their page, and small changed pages with a
   * neighbour page, where the two fit in one: the form the side is written in.
   */
  void normalize() {
    for (Page p : pages) {
      if (p.chunks != null && p.dirty) {
        mergeChunks(p);
      }
    }
    for (int i = 0; i < pages.size(); i++) {
      Page p = pages.get(i);
      if (!p.dirty || p.chunks == null || p.chunks.size() >= PAGE_CHUNKS / 4) {
        continue;
      }
      int other = i + 1 < pages.size() ? i + 1 : i - 1;
      if (other < 0) {
        continue;
      }
      Page q = page(other);
      if (p.chunks.size() + q.chunks.size() > PAGE_CHUNKS) {
        continue;
      }
      Page first = other < i ? q : p;
      Page second = other < i ? p : q;
      first.chunks.addAll(second.chunks);
      refresh(first);
      first.lowKeys = null;
      pages.remove(second);
      pageKeys = null;
      drop(second.number);
      i = -1; // indexes moved: look again (each merge removes a page, so this ends)
    }
  }

  private void mergeChunks(Page p) {
    List<Chunk> cs = p.chunks;
    for (int i = 0; i < cs.size(); i++) {
      Chunk c = cs.get(i);
      if (!c.dirty || c.bytes >= MERGE_BELOW) {
        continue;
      }
      int other = i + 1 < cs.size() ? i + 1 : i - 1;
      if (other < 0 || c.bytes + cs.get(other).bytes > CHUNK_BYTES) {
        continue;
      }
      Chunk first = cs.get(Math.min(i, other));
      Chunk second = cs.get(Math.max(i, other));
      entries(first).addAll(entries(second));
      refresh(first);
      cs.remove(second);
      drop(second.number);
      refresh(p);
      p.lowKeys = null;
      pageKeys = null;
      i = Math.max(-1, Math.min(i, other) - 1);
    }
  }

  /** Stores a chunk's or page's payload. */
  @FunctionalInterface
  interface Store {
    void put(int number, PayloadEncoder payload, boolean fresh);
  }

  /**
   * Writes the side back, after {@link #normalize}: fresh chunks get numbers and every changed
   * chunk is stored (in place when it had a number), every changed page under a fresh number (the
   * old one dropped).
   *
   * @param head gives fresh numbers
   * @param store where payloads go
   * @param made given each page written, with the refs it lists
   * @return the side's page refs, for the head
   */
  List<Ref> write(ZSetChunks.Index head, Store store, MadePage made) {
    List<Ref> refs = new ArrayList<>(pages.size());
    for (Page p : pages) {
      if (p.chunks != null) {
        List<Ref> chunkRefs = new ArrayList<>(p.chunks.size());
        for (Chunk c : p.chunks) {
          boolean fresh = c.number < 0;
          if (fresh) {
            c.number = head.takeNumber();
          }
          if (c.dirty || fresh) {
            store.put(
                c.number, c.entries != null ? ZSetChunks.chunk(c.entries) : c.buf.encoder(), fresh);
            c.dirty = false;
          }
          chunkRefs.add(new Ref(c.number, c.count, c.bytes, c.low));
        }
        if (p.dirty || p.number < 0) {
          drop(p.number);
          p.number = head.takeNumber();
          store.put(p.number, ZSetChunks.page(chunkRefs), true);
          made.accept(p.number, List.copyOf(chunkRefs));
          p.dirty = false;
        }
      }
      refs.add(new Ref(p.number, p.count, (int) Math.min(p.bytes, Integer.MAX_VALUE), p.low));
    }
    return refs;
  }
}
