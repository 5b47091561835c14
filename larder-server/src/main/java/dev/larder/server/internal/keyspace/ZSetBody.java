package dev.larder.server.internal.keyspace;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A sorted set being read or changed by one command, in either stored form: one packed payload
 * ({@link ZSetPayload}, a small set) or the two sides of a chunked one ({@link ZSetChunks}, {@link
 * ZSetSide}), whose pages and chunks are read only when the command reaches them. The keyspace
 * builds it ({@link Keyspace#editZSet}, {@link Keyspace#readZSet}), the command works on it, and
 * the keyspace writes back what changed ({@link ZSetStore}).
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A packed set is worked on in its payload as before (a TABLE in place); it stays packed for the
 * whole command and is converted when written back, if it has grown past {@link #PACKED_MAX}. A
 * chunked set keeps each entry in both sides: a lookup by member reads the by-member side, a rank,
 * a range or a pop the by-score side, and a change touches both (ZADD of a new member: one chunk of
 * each side). A chunked set whose by-score chunks hold less than {@link #CHUNKED_MIN} together is
 * packed again when written back.
 *
 * <p>Not thread-safe: one command's, under its key's stripe (a packed set read without one works on
 * the bytes it was given).
 */
public final class ZSetBody {
  /** A packed sorted set whose payload passes this becomes chunked. */
  static final int PACKED_MAX = 8192;

  /** A chunked sorted set whose by-score chunks hold less than this together becomes packed. */
  static final int CHUNKED_MIN = 2048;

  private byte[] packed;
  private ZSetPayload.View view;
  private ZSetSide byScore;
  private ZSetSide byMember;
  private final ZSetChunks.Index index;

  /** How many times a command changed it: {@link #changed} is whether it ever did. */
  private long changes;

  /** The index pages {@link #write} made: their numbers, and the refs at the same positions. */
  private final List<Integer> madeNumbers = new ArrayList<>();

  private final List<List<ZSetChunks.Ref>> madePages = new ArrayList<>();

  private ZSetBody(byte[] packed, ZSetChunks.Index index) {
    this.packed = packed;
    this.index = index;
  }

  /** An empty set (an absent key). */
  static ZSetBody empty() {
    return new ZSetBody(null, null);
  }

  /** A packed set. */
  static ZSetBody packed(byte[] payload) {
    return new ZSetBody(payload, null);
  }

  /** A chunked set whose pages and chunks {@code loader} reads. */
  static ZSetBody chunked(ZSetChunks.Index index, ChunkLoader loader) {
    return chunked(index, loader, ZSetSide.decodingPages(loader));
  }

  /** A chunked set whose chunks {@code loader} reads and whose index pages {@code pages} reads. */
  static ZSetBody chunked(ZSetChunks.Index index, ChunkLoader loader, ZSetSide.PageReader pages) {
    ZSetBody b = new ZSetBody(null, index);
    int next = index.nextNumber();
    b.byScore = ZSetSide.stored(ZSetSide.BY_SCORE, index.byScore(), loader, pages, next);
    b.byMember = ZSetSide.stored(ZSetSide.BY_MEMBER, index.byMember(), loader, pages, next);
    return b;
  }

  private boolean chunkedNow() {
    return byScore != null;
  }

  private ZSetPayload.View view() {
    if (view == null) {
      view = ZSetPayload.view(packed);
    }
    return view;
  }

  private void setPacked(byte[] p) {
    packed = p;
    view = null;
    changes++;
  }

  /** Returns whether it was read in the chunked form. */
  boolean wasChunked() {
    return index != null;
  }

  /** Returns the index it was read from, or null if it was not chunked. */
  ZSetChunks.Index index() {
    return index;
  }

  /** Returns whether a command changed it. */
  boolean changed() {
    return changes != 0;
  }

  /**
   * Returns how many changes were made to it: an open set's count, compared before and after a
   * command ({@link OpenCollections}).
   */
  long changes() {
    return changes;
  }

  /**
   * Reads every page and chunk of a chunked set into memory, in their payload form: an open set
   * ({@link OpenCollections}), whose commands read the store no more.
   */
  void loadAll() {
    byScore.loadAll();
    byMember.loadAll();
  }

  /**
   * Encodes the chunks a command decoded into entry lists back into their payload form: an open
   * set's, after each command, so that it stays as compact as its chunks are and the next command
   * splices them in place.
   */
  void settle() {
    if (chunkedNow()) {
      byScore.settle();
      byMember.settle();
    }
  }

  /**
   * Returns the bytes a chunked set holds in memory on both sides: its chunks' buffers with their
   * room for splices in place, their entry offsets (4 bytes an entry) and the by-member side's
   * member hashes (4 bytes an entry); a packed one's payload.
   */
  long heldBytes() {
    if (!chunkedNow()) {
      return bytes();
    }
    return byScore.heldBytes() + byMember.heldBytes();
  }

  /** Returns a chunked set's chunks and pages on both sides (1 for a packed one). */
  int segmentCount() {
    return chunkedNow() ? byScore.segmentCount() + byMember.segmentCount() : 1;
  }

  /** Returns the number of entries. */
  public int size() {
    if (chunkedNow()) {
      return (int) Math.min(byScore.size(), Integer.MAX_VALUE);
    }
    return packed == null ? 0 : view().size();
  }

  /** Returns a member's score, or null if it is not a member. */
  public Double score(byte[] member) {
    if (chunkedNow()) {
      Entry e = byMember.find(0, member);
      return e == null ? null : e.score();
    }
    if (packed == null) {
      return null;
    }
    int r = view().rank(member);
    return r < 0 ? null : view().score(r);
  }

  /** Returns a member's rank (0 for the lowest score), or -1 if it is not a member. */
  public int rank(byte[] member) {
    if (chunkedNow()) {
      Entry e = byMember.find(0, member);
      return e == null ? -1 : (int) byScore.rank(e.score(), member);
    }
    return packed == null ? -1 : view().rank(member);
  }

  /** Returns the entry at a rank, 0 to size - 1. */
  public Entry entry(int rank) {
    if (chunkedNow()) {
      return byScore.at(rank);
    }
    return new Entry(view().member(rank), view().score(rank));
  }

  /** Returns the entries from rank {@code from} to {@code to} inclusive, in order. */
  public List<Entry> range(int from, int to) {
    if (chunkedNow()) {
      return byScore.range(from, to);
    }
    List<Entry> out = new ArrayList<>(Math.max(0, to - from + 1));
    for (int r = from; r <= to; r++) {
      out.add(entry(r));
    }
    return out;
  }

  /**
   * Returns the first rank at which a predicate that is false then true along the order holds (the
   * size if it never does): a score or member range's end.
   */
  public int firstRank(Predicate<Entry> holds) {
    if (chunkedNow()) {
      return (int) byScore.firstRank(holds);
    }
    int lo = 0;
    int hi = size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (holds.test(entry(mid))) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /**
   * Sets a member's score, adding it if absent.
   *
   * @param member the member
   * @param score its score, not NaN
   */
  public void put(byte[] member, double score) {
    if (Double.isNaN(score)) {
      throw new IllegalArgumentException("NaN score");
    }
    if (!chunkedNow()) {
      setPacked(ZSetPayload.put(packed, member, score));
      return;
    }
    Entry e = new Entry(member, score);
    Entry old = byMember.put(e);
    if (old != null) {
      if (Double.doubleToRawLongBits(old.score()) == Double.doubleToRawLongBits(score)) {
        return;
      }
      byScore.remove(old.score(), member);
    }
    byScore.put(e);
    changes++;
  }

  /**
   * Sets every entry's score, adding the absent ones: a packed set is rebuilt once for a large
   * batch.
   *
   * @param updates entries with distinct members, scores not NaN
   */
  public void putAll(List<Entry> updates) {
    if (updates.isEmpty()) {
      return;
    }
    if (!chunkedNow()) {
      setPacked(ZSetPayload.putAll(packed, updates));
      return;
    }
    for (Entry e : updates) {
      put(e.member(), e.score());
    }
  }

  /** Removes a member; returns whether it was one. */
  public boolean remove(byte[] member) {
    if (chunkedNow()) {
      Entry old = byMember.remove(0, member);
      if (old == null) {
        return false;
      }
      byScore.remove(old.score(), member);
      changes++;
      return true;
    }
    if (packed == null) {
      return false;
    }
    byte[] next = ZSetPayload.remove(packed, member);
    if (next == null) {
      return false;
    }
    setPacked(next);
    return true;
  }

  /**
   * Removes up to {@code count} entries from the low or the high end.
   *
   * @param max from the high end (ZPOPMAX) or the low end
   * @param count the most entries to take, at least 1
   * @return the entries in pop order
   */
  public List<Entry> pop(boolean max, long count) {
    int n = (int) Math.min(count, size());
    List<Entry> popped = new ArrayList<>(n);
    if (n == 0) {
      return popped;
    }
    if (chunkedNow()) {
      for (int k = 0; k < n; k++) {
        Entry e = byScore.at(max ? byScore.size() - 1 : 0);
        byScore.remove(e.score(), e.member());
        byMember.remove(0, e.member());
        popped.add(e);
      }
      changes++;
      return popped;
    }
    List<Entry> all = ZSetPayload.entries(packed);
    for (int k = 0; k < n; k++) {
      popped.add(all.get(max ? all.size() - 1 - k : k));
    }
    List<Entry> rest = max ? all.subList(0, all.size() - n) : all.subList(n, all.size());
    setPacked(ZSetPayload.encode(rest));
    return popped;
  }

  /** Removes the entries from rank {@code from} to {@code to} inclusive (a non-empty run). */
  public void removeRanks(int from, int to) {
    if (chunkedNow()) {
      for (Entry e : byScore.range(from, to)) {
        byScore.remove(e.score(), e.member());
        byMember.remove(0, e.member());
      }
      changes++;
      return;
    }
    List<Entry> all = ZSetPayload.entries(packed);
    all.subList(from, to + 1).clear();
    setPacked(ZSetPayload.encode(all));
  }

  /**
   * Collects one ZSCAN page: entries whose member hash ({@link ScanCursor#hash}) is at least the
   * cursor, about {@code count} of them; a chunked set reads only the by-member chunks the page
   * covers.
   *
   * @param cursor the client's cursor
   * @param count how many entries to aim for
   * @param matches which members the page keeps
   * @param page receives the page's entries, in member-hash order
   * @return the next cursor, 0 when the scan is complete
   */
  public long scan(long cursor, int count, Predicate<byte[]> matches, List<Entry> page) {
    if (chunkedNow()) {
      return byMember.scan(cursor, count, matches, page);
    }
    ScanCursor scan = new ScanCursor(cursor, count);
    java.util.IdentityHashMap<byte[], Entry> offered = new java.util.IdentityHashMap<>();
    for (int r = 0; r < size(); r++) {
      Entry e = entry(r);
      if (matches.test(e.member())) {
        scan.offer(e.member());
        offered.put(e.member(), e);
      }
    }
    List<byte[]> members = new ArrayList<>();
    long next = scan.finish(members);
    for (byte[] m : members) {
      page.add(offered.get(m));
    }
    return next;
  }

  /** Returns every entry, in order (reading every chunk of a chunked set). */
  public List<Entry> entries() {
    if (chunkedNow()) {
      return byScore.all();
    }
    return packed == null ? new ArrayList<>() : ZSetPayload.entries(packed);
  }

  /** Returns the payload bytes: a packed set's payload, or a chunked one's by-score chunks. */
  long bytes() {
    if (chunkedNow()) {
      return byScore.bytes();
    }
    return packed == null ? 0 : packed.length;
  }

  /** Returns the whole set as one packed payload. */
  byte[] packedPayload() {
    return chunkedNow() ? ZSetPayload.encode(byScore.all()) : packed;
  }

  /** Makes both sides afresh from every entry: for a conversion, or a renumbering. */
  void rebuild() {
    List<Entry> all = entries();
    byScore = ZSetSide.build(ZSetSide.BY_SCORE, all);
    byMember = ZSetSide.build(ZSetSide.BY_MEMBER, all);
    packed = null;
    view = null;
    changes++;
  }

  /**
   * Writes a chunked set back: normalizes both sides, stores their changed chunks and pages, and
   * fills in the head's page refs.
   *
   * @param head an index with no page refs yet, of the set's collection id and next number
   * @param store where the chunks and pages go
   * @return {@code head}
   */
  ZSetChunks.Index write(ZSetChunks.Index head, ZSetSide.Store store) {
    byScore.normalize();
    byMember.normalize();
    head.byScore().addAll(byScore.write(head, store, this::made));
    head.byMember().addAll(byMember.write(head, store, this::made));
    return head;
  }

  private void made(int number, List<ZSetChunks.Ref> chunks) {
    madeNumbers.add(number);
    madePages.add(chunks);
  }

  /**
   * Names the index pages the write-back made, with the chunk refs each lists.
   *
   * @param visit given each page's number and refs (not to be changed)
   */
  void madePages(ZSetSide.MadePage visit) {
    for (int i = 0; i < madeNumbers.size(); i++) {
      visit.accept(madeNumbers.get(i), madePages.get(i));
    }
  }

  /** Returns the stored numbers a written-back set no longer uses. */
  List<Integer> dropped() {
    List<Integer> out = new ArrayList<>(byScore.dropped());
    out.addAll(byMember.dropped());
    return out;
  }
}
