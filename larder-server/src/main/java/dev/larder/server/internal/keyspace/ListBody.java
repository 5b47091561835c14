package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * A list being read or changed by one command, in either stored form: one packed payload (a small
 * list) or the chunks a chunked list's head names ({@link ListChunks}), each a packed payload read
 * from the store only when the command reaches it. The keyspace builds it ({@link
 * Keyspace#editList}), the command works on it, and the keyspace writes back what changed.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The list is a run of segments, head first, each a packed payload ({@link ListPayload}) with
 * its element count and size, or an index page of a chunked list ({@link ListChunks}) standing for
 * the chunks it lists, unread. A page is read and replaced by its chunks ({@code expand}) only when
 * a command reaches it: a push or pop at an end whose chunks are all gone, an index inside it, a
 * whole-list walk. A push changes the end segment, or starts a new one when the end one would pass
 * {@link #CHUNK_BYTES}; a pop changes the end segments and drops emptied ones; an index finds its
 * segment by the counts (a page's counts are its chunks' together), so LINDEX, LSET and LRANGE read
 * only the pages and chunks they reach. A segment changed is marked dirty: only dirty segments are
 * written back. A segment that a change made larger than a chunk should be is split when the list
 * is written ({@link #normalize}); a small changed segment is merged with a loaded neighbour.
 *
 * <p>Writing a chunked list back ({@link #write}) keeps the head small: up to {@link #END_CHUNKS}
 * chunks at each end are listed in the head itself, and a longer run of chunks is folded into index
 * pages of up to {@link #PAGE_CHUNKS} chunks, all but the {@link #END_KEEP} nearest the end; a run
 * at an end folds into the page next to it when that page has room (read and rewritten under a
 * fresh number). So a push into an end chunk with room writes that chunk and a head of a few dozen
 * entries, a new end chunk every {@link #END_CHUNKS} - {@link #END_KEEP} adds one page write, and
 * nothing walks the list's other chunks.
 *
 * <p>A chunk is stored front-coded when that is shorter ({@link ListPayload#storedChunk}), except
 * the two end chunks of a list of at least {@link #PLAIN_ENDS_MIN} bytes, which are stored plain:
 * pushes and pops change them, and on the store's path (a keyspace without the open tier) expanding
 * and front-coding a chunk of a few hundred short elements again at every command cost an order of
 * magnitude more than the push. A smaller list keeps every chunk front-coded: it opens when hot, so
 * its chunks are coded once per close, and two plain chunks would be a large share of its bytes. A
 * chunk that stops being an end chunk because a push started a new one is rewritten front-coded
 * ({@code leavesEnd}).
 *
 * <p>Not thread-safe: one command's, under its key's stripe.
 */
public final class ListBody {
  /** The payload size a chunk is filled to. */
  static final int CHUNK_BYTES = 4096;

  /**
   * A chunked list of at least these payload bytes stores its two end chunks plain (see the class
   * notes): large enough that the list may not fit the open-collection tier and takes the store's
   * path at every command, and that two plain chunks are a few percent of it at most.
   */
  static final long PLAIN_ENDS_MIN = 1 << 20;

  /** A packed list whose payload passes this becomes chunked. */
  static final int PACKED_MAX = 8192;

  /** A chunked list whose segments hold less than this together becomes packed again. */
  static final int CHUNKED_MIN = 2048;

  /** A run of chunks at an end of the list up to this long is listed in the head one by one. */
  static final int END_CHUNKS = 16;

  /** The chunks a longer run at an end keeps in the head when the rest is folded into pages. */
  static final int END_KEEP = 8;

  /** The most chunks an index page lists (a page of about 3.5 KiB). */
  static final int PAGE_CHUNKS = 512;

  static final class Segment {
    int number;
    int count;
    int bytes;
    byte[] payload;
    boolean dirty;

    /** For an index page not read yet: the chunks it lists (else 0). */
    int pageChunks;

    Segment(int number, int count, int bytes, byte[] payload) {
      this.number = number;
      this.count = count;
      this.bytes = bytes;
      this.payload = payload;
    }

    boolean isPage() {
      return pageChunks > 0;
    }

    static Segment fresh(byte[] payload) {
      Segment s = new Segment(-1, ListPayload.count(payload), payload.length, payload);
      s.dirty = true;
      return s;
    }
  }

  private final List<Segment> segments = new ArrayList<>();
  private final ChunkLoader loader;
  private final ListChunks.Index index;

  /** Changes made so far (an open list's commands are told apart by it: {@link #changes}). */
  private long changes;

  /** Whether a change left a segment larger than a written chunk may be ({@link #splitLarge}). */
  private boolean oversized;

  /** Index pages among the segments, not read yet. */
  private int pages;

  /**
   * Whether it is held in memory across commands (an open list, {@link #loadAll}): its segments are
   * then kept in the packed encoding, whose backlens let a pop or push at the tail reach the last
   * element without walking the chunk from its head; a write-back stores them as chunks.
   */
  private boolean held;

  /**
   * Whether it is held with only the chunks commands reach read ({@link #holdPartly}): an open list
   * too large to hold whole.
   */
  private boolean partly;

  /** Chunks read from the store since {@link #releaseRead} last ran. */
  private int reads;

  /**
   * The segments at each end a list held partly keeps read across commands: the ones pushes and
   * pops reach.
   */
  static final int ENDS_HELD = 2;

  /**
   * The segments' element count and payload bytes together, kept as the segments change so that a
   * push's reply (the new length) and the open-collection tier's byte count do not walk a long
   * list; -1 when a change that rebuilt the segments left them to be counted again.
   */
  private long elementCount = -1;

  private long payloadBytes = -1;

  /** The payload bytes of the segments read (see {@link #heldBytes}), kept with the two above. */
  private long readBytes = -1;

  /** Stored segments the command removed: chunks, and pages dropped unread. */
  private final List<Segment> dropped = new ArrayList<>();

  /** The numbers of the pages read and replaced by their chunks. */
  private final List<Integer> expanded = new ArrayList<>();

  private ListBody(ChunkLoader loader, ListChunks.Index index) {
    this.loader = loader;
    this.index = index;
  }

  /** An empty list (an absent key). */
  static ListBody empty() {
    return new ListBody(n -> null, null);
  }

  /** A packed list. */
  static ListBody packed(byte[] payload) {
    ListBody b = new ListBody(n -> null, null);
    b.segments.add(new Segment(-1, ListPayload.count(payload), payload.length, payload));
    return b;
  }

  /** A chunked list whose chunks {@code loader} reads. */
  static ListBody chunked(ListChunks.Index index, ChunkLoader loader) {
    ListBody b = new ListBody(loader, index);
    for (int i = 0; i < index.entries(); i++) {
      Segment s = new Segment(index.number(i), index.count(i), index.bytes(i), null);
      s.pageChunks = index.pageChunks(i);
      if (s.isPage()) {
        b.pages++;
      }
      b.segments.add(s);
    }
    return b;
  }

  /**
   * The encoding of segments it makes: a chunked list's chunks are {@link ListPayload#CHUNK} (an
   * open one's {@link ListPayload#PACKED}, see {@link #held}), a packed list's one payload {@link
   * ListPayload#PACKED} (converted when the form changes: {@link #normalize}).
   */
  private int encoding() {
    return index != null && !held ? ListPayload.CHUNK : ListPayload.PACKED;
  }

  private byte[] encode(List<byte[]> elements) {
    return ListPayload.encode(elements, encoding());
  }

  /** Returns whether it was read in the chunked form. */
  boolean wasChunked() {
    return index != null;
  }

  /** Returns the index it was read from, or null if it was not chunked. */
  ListChunks.Index index() {
    return index;
  }

  /** Returns whether a command changed it. */
  boolean changed() {
    return changes != 0;
  }

  /**
   * Returns how many changes were made to it: an open list ({@link OpenCollections}) outlives its
   * commands, and a command changed it if this moved.
   */
  long changes() {
    return changes;
  }

  /**
   * Reads every index page and every chunk into memory, so that no later command reads the store:
   * the body of an open list ({@link OpenCollections}).
   *
   * @throws MissingChunk if the store no longer holds one of them
   */
  void loadAll() {
    expandAll();
    held = true;
    for (Segment s : segments) {
      payload(s); // read packed, as a held list's segments are
    }
  }

  /**
   * Holds it across commands without reading it first: the body of an open list too large to hold
   * whole ({@link OpenCollections}). A chunk or index page is read when a command reaches it, as on
   * the store's path, and {@link #releaseRead} forgets the chunks read away from the ends once the
   * command is done, so that what it holds is its ends and what its commands changed. The store
   * keeps every chunk it reads unchanged while it is open (the open collection's rule), so a chunk
   * forgotten is read again as it was.
   */
  void holdPartly() {
    held = true;
    partly = true;
  }

  /** Returns whether it is held partly ({@link #holdPartly}). */
  boolean heldPartly() {
    return partly;
  }

  /**
   * For a list held partly: forgets the chunks read since the last call that lie away from its ends
   * and are unchanged (read again from the store when a command reaches them). A walk of the
   * segments, only after a command that read a chunk.
   */
  void releaseRead() {
    if (!partly || reads == 0) {
      return;
    }
    reads = 0;
    int n = segments.size();
    for (int i = ENDS_HELD; i < n - ENDS_HELD; i++) {
      Segment s = segments.get(i);
      if (!s.dirty && s.payload != null) { // a fresh segment is dirty
        countOut(s);
        s.payload = null;
        countIn(s);
      }
    }
  }

  /**
   * Returns the payload bytes it holds in memory: every segment's once {@link #loadAll} read them,
   * else those of the chunks read (an index page or chunk not read holds none).
   */
  long heldBytes() {
    if (elementCount < 0) {
      recount();
    }
    return readBytes;
  }

  /** Returns {@link #heldBytes} counted by a walk of the segments: the running total's check. */
  long heldBytesWalked() {
    long n = 0;
    for (Segment s : segments) {
      n += s.payload != null ? s.bytes : 0;
    }
    return n;
  }

  /** Returns the segments it holds, chunks and index pages not read, without reading a page. */
  int heldSegments() {
    return segments.size();
  }

  /**
   * Splits the segments a change made larger than a chunk should be (LSET, LINSERT, LREM grow one
   * in place; a push never does: it starts a new end segment), as a write-back would: an open list
   * does it after each such command, so that a later command copies a segment of a few KiB.
   */
  void splitLarge() {
    if (!oversized) {
      return;
    }
    oversized = false;
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      if (s.dirty && !s.isPage() && s.bytes > CHUNK_BYTES + CHUNK_BYTES / 2) {
        List<Segment> pieces = split(payload(s), encoding());
        segments.remove(i);
        countOut(s);
        segments.addAll(i, pieces);
        for (Segment piece : pieces) {
          countIn(piece);
        }
        pieces.getFirst().number = s.number;
        i += pieces.size() - 1;
      }
    }
  }

  /** Returns the number of elements. */
  public int size() {
    if (elementCount < 0) {
      recount();
    }
    return (int) Math.min(elementCount, Integer.MAX_VALUE);
  }

  /** Returns the payload bytes of every segment together. */
  long bytes() {
    if (payloadBytes < 0) {
      recount();
    }
    return payloadBytes;
  }

  private void recount() {
    long n = 0;
    long b = 0;
    long r = 0;
    for (Segment s : segments) {
      n += s.count;
      b += s.bytes;
      r += s.payload != null ? s.bytes : 0;
    }
    elementCount = n;
    payloadBytes = b;
    readBytes = r;
  }

  /** Forgets the running totals: the segments were rebuilt; the next read counts them again. */
  private void forgetTotals() {
    elementCount = -1;
    payloadBytes = -1;
    readBytes = -1;
  }

  /** Counts a segment that joins the list. */
  private void countIn(Segment s) {
    if (elementCount >= 0) {
      elementCount += s.count;
      payloadBytes += s.bytes;
      readBytes += s.payload != null ? s.bytes : 0;
    }
  }

  /** Counts a segment that leaves the list. */
  private void countOut(Segment s) {
    if (elementCount >= 0) {
      elementCount -= s.count;
      payloadBytes -= s.bytes;
      readBytes -= s.payload != null ? s.bytes : 0;
    }
  }

  /**
   * Returns the number of segments (the list's chunks, or 1 for a packed list). Reads every index
   * page: the segment-by-segment walks (LINSERT, LREM, LPOS) see chunks only.
   */
  public int segmentCount() {
    expandAll();
    return segments.size();
  }

  /** Returns the element count of a segment. */
  public int segmentSize(int segment) {
    expandAll();
    return segments.get(segment).count;
  }

  /** Returns a segment's elements, head first (reading it if not read yet). */
  public List<byte[]> segmentElements(int segment) {
    expandAll();
    return ListPayload.decode(payload(segments.get(segment)));
  }

  /**
   * Replaces a segment's elements; an empty list removes the segment.
   *
   * @param segment the segment's position
   * @param elements its new elements
   */
  public void replaceSegment(int segment, List<byte[]> elements) {
    expandAll();
    changes++;
    if (elements.isEmpty()) {
      Segment gone = segments.remove(segment);
      countOut(gone);
      drop(gone);
      return;
    }
    Segment s = segments.get(segment);
    set(s, encode(elements));
  }

  private byte[] payload(Segment s) {
    if (s.isPage()) {
      throw new IllegalStateException("an index page has no elements of its own");
    }
    if (s.payload == null) {
      byte[] p = loader.load(s.number);
      if (p == null) {
        throw new MissingChunk();
      }
      byte[] chunk = ListPayload.loadedChunk(p); // the store may hold it front-coded
      // A held list's segments are packed, with backlens (see held). Their bytes stay the stored
      // chunk's, which the head names while it is clean: a write-back lists a clean chunk with
      // them; a change sets them to what it holds.
      countOut(s);
      s.payload =
          held && chunk[0] != ListPayload.PACKED
              ? ListPayload.reencode(chunk, ListPayload.PACKED)
              : chunk;
      countIn(s);
      reads++;
    }
    return s.payload;
  }

  /**
   * Replaces the index page at a position by the chunks it lists (not read yet).
   *
   * @throws MissingChunk if the store no longer holds the page
   */
  private void expand(int at) {
    Segment page = segments.get(at);
    byte[] payload = loader.load(page.number);
    if (payload == null) {
      throw new MissingChunk();
    }
    ListChunks.Index chunks = ListChunks.Index.decodePage(payload, index.nextNumber());
    if (chunks.total() != page.count) {
      throw new IllegalArgumentException("a list index page's chunks differ from its head entry");
    }
    List<Segment> listed = new ArrayList<>(chunks.entries());
    for (int i = 0; i < chunks.entries(); i++) {
      listed.add(new Segment(chunks.number(i), chunks.count(i), chunks.bytes(i), null));
    }
    countOut(segments.remove(at));
    segments.addAll(at, listed);
    for (Segment s : listed) {
      countIn(s);
    }
    pages--;
    expanded.add(page.number);
  }

  private void expandAll() {
    for (int i = 0; pages > 0 && i < segments.size(); i++) {
      if (segments.get(i).isPage()) {
        expand(i);
      }
    }
  }

  /** The first segment, a chunk (an index page there is read first); the list is not empty. */
  private Segment first() {
    if (segments.getFirst().isPage()) {
      expand(0);
    }
    return segments.getFirst();
  }

  /** The last segment, a chunk (an index page there is read first); the list is not empty. */
  private Segment last() {
    if (segments.getLast().isPage()) {
      expand(segments.size() - 1);
    }
    return segments.getLast();
  }

  /** Notes that a stored segment left the list: written back, it is removed from the store. */
  private void drop(Segment s) {
    if (s.number >= 0) {
      dropped.add(s);
    }
  }

  private void set(Segment s, byte[] payload) {
    countOut(s);
    s.payload = payload;
    s.count = ListPayload.count(payload);
    s.bytes = payload.length;
    s.dirty = true;
    countIn(s);
    changes++;
    if (payload.length > CHUNK_BYTES + CHUNK_BYTES / 2) {
      oversized = true;
    }
  }

  /**
   * Pushes the elements at the head one after another (LPUSH a b c leaves c b a).
   *
   * @param elements at least one
   */
  public void pushHead(List<byte[]> elements) {
    changes++;
    if (!segments.isEmpty() && fits(first(), elements)) {
      Segment s = segments.getFirst();
      set(s, ListPayload.pushHead(payload(s), elements));
      return;
    }
    if (!segments.isEmpty()) {
      leavesEnd(segments.getFirst());
    }
    Segment s = Segment.fresh(encode(elements.reversed()));
    segments.addFirst(s);
    countIn(s);
  }

  /**
   * Appends the elements at the tail, in order.
   *
   * @param elements at least one
   */
  public void pushTail(List<byte[]> elements) {
    changes++;
    if (!segments.isEmpty() && fits(last(), elements)) {
      Segment s = segments.getLast();
      set(s, ListPayload.pushTail(payload(s), elements));
      return;
    }
    if (!segments.isEmpty()) {
      leavesEnd(segments.getLast());
    }
    Segment s = Segment.fresh(encode(elements));
    segments.addLast(s);
    countIn(s);
  }

  /**
   * Marks a chunk that a new chunk is about to replace as the list's end for rewriting: an end
   * chunk is stored plain ({@link #write}) and is now an inner one, to be stored front-coded. One
   * read and one write of a chunk per chunk filled by pushes.
   */
  private void leavesEnd(Segment s) {
    if (index != null && !s.isPage() && !s.dirty && bytes() >= PLAIN_ENDS_MIN) {
      payload(s);
      s.dirty = true;
    }
  }

  /** Whether pushing the elements into an end segment keeps it within its bound. */
  private boolean fits(Segment s, List<byte[]> elements) {
    if (index == null) {
      return true;
    }
    long added = 0;
    for (byte[] e : elements) {
      added += e.length + 2L * Varint.size(e.length);
    }
    return s.bytes + added <= CHUNK_BYTES;
  }

  /**
   * Takes up to {@code n} elements from the head.
   *
   * @param n at least 1
   * @return the elements in the order taken (empty if the list is)
   */
  public List<byte[]> popHead(int n) {
    List<byte[]> taken = new ArrayList<>(Math.min(n, 1024));
    while (taken.size() < n && !segments.isEmpty()) {
      Segment s = first();
      ListPayload.Popped p = ListPayload.popHead(payload(s), n - taken.size());
      taken.addAll(p.elements());
      take(0, s, p.rest());
    }
    return taken;
  }

  /**
   * Takes up to {@code n} elements from the tail, the last first.
   *
   * @param n at least 1
   * @return the elements in the order taken (empty if the list is)
   */
  public List<byte[]> popTail(int n) {
    List<byte[]> taken = new ArrayList<>(Math.min(n, 1024));
    while (taken.size() < n && !segments.isEmpty()) {
      Segment s = last();
      ListPayload.Popped p = ListPayload.popTail(payload(s), n - taken.size());
      taken.addAll(p.elements());
      take(segments.size() - 1, s, p.rest());
    }
    return taken;
  }

  /** Leaves the end segment {@code s}, at {@code at}, with {@code rest} (null: removed). */
  private void take(int at, Segment s, byte[] rest) {
    changes++;
    if (rest == null) {
      segments.remove(at);
      countOut(s);
      drop(s);
    } else {
      set(s, rest);
    }
  }

  /**
   * Returns the elements from {@code start} to {@code stop} inclusive, both within {@code
   * 0..size-1}, {@code start <= stop}.
   */
  public List<byte[]> range(int start, int stop) {
    ElementSlices slices = new ElementSlices(stop - start + 1);
    range(start, stop, slices);
    List<byte[]> out = new ArrayList<>(slices.size());
    for (int i = 0; i < slices.size(); i++) {
      out.add(slices.copy(i));
    }
    return out;
  }

  /**
   * Names the elements from {@code start} to {@code stop} inclusive, both within {@code 0..size-1},
   * {@code start <= stop}, where they lie in the chunks read: the elements of {@link #range(int,
   * int)} without a copy of each (LRANGE writes them into its reply from there).
   *
   * @param out where the slices go, in order
   */
  public void range(int start, int stop, ElementSlices out) {
    int first = 0;
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      int last = first + s.count - 1;
      if (last >= start && first <= stop) {
        if (s.isPage()) {
          expand(i--);
          continue;
        }
        ListPayload.range(
            payload(s), Math.max(start, first) - first, Math.min(stop, last) - first, out);
      }
      if (last >= stop) {
        break;
      }
      first = last + 1;
    }
  }

  /** Returns the element at an index within {@code 0..size-1}. */
  public byte[] get(int index) {
    return range(index, index).getFirst();
  }

  /** Replaces the element at an index within {@code 0..size-1}. */
  public void set(int index, byte[] element) {
    int first = 0;
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      if (index < first + s.count) {
        if (s.isPage()) {
          expand(i--);
          continue;
        }
        List<byte[]> elements = ListPayload.decode(payload(s));
        elements.set(index - first, element);
        set(s, encode(elements));
        return;
      }
      first += s.count;
    }
    throw new IndexOutOfBoundsException(index);
  }

  /**
   * Keeps only the elements from {@code start} to {@code stop} inclusive, both within {@code
   * 0..size-1}, {@code start <= stop}: whole segments outside go unread (an index page outside is
   * read when the list is written back, for the chunks to remove).
   */
  public void trim(int start, int stop) {
    int first = 0;
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      int last = first + s.count - 1;
      if (s.isPage() && last >= start && first <= stop && (first < start || last > stop)) {
        expand(i--);
        continue;
      }
      first = last + 1;
    }
    List<Segment> kept = new ArrayList<>();
    first = 0;
    for (Segment s : segments) {
      int last = first + s.count - 1;
      if (last >= start && first <= stop) {
        int from = Math.max(start, first) - first;
        int to = Math.min(stop, last) - first;
        if (from != 0 || to != s.count - 1) {
          set(s, encode(ListPayload.range(payload(s), from, to)));
        }
        kept.add(s);
      } else {
        drop(s);
        if (s.isPage()) {
          pages--;
        }
      }
      first = last + 1;
    }
    if (kept.size() != segments.size()) {
      changes++;
      segments.clear();
      segments.addAll(kept);
      forgetTotals();
    }
  }

  /**
   * Brings the segments to the shape of the form the list is written in: for a packed list, one
   * segment; for a chunked one, dirty segments of at most about {@link #CHUNK_BYTES} (split when
   * larger), small dirty ones merged with a loaded neighbour.
   *
   * @param packed whether the list is written packed
   */
  void normalize(boolean packed) {
    if (packed) {
      Segment one = Segment.fresh(packedPayload());
      segments.clear();
      segments.add(one);
      forgetTotals();
      return;
    }
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      if (s.dirty && !s.isPage() && s.bytes > CHUNK_BYTES + CHUNK_BYTES / 2) {
        List<Segment> pieces = split(payload(s), ListPayload.CHUNK);
        segments.remove(i);
        segments.addAll(i, pieces);
        pieces.getFirst().number = s.number;
        i += pieces.size() - 1;
      }
    }
    for (int i = 0; i + 1 < segments.size(); i++) {
      Segment a = segments.get(i);
      Segment b = segments.get(i + 1);
      if ((a.dirty || b.dirty)
          && a.payload != null
          && b.payload != null
          && (a.bytes < CHUNK_BYTES / 4 || b.bytes < CHUNK_BYTES / 4)
          && a.bytes + b.bytes <= CHUNK_BYTES) {
        List<byte[]> both = ListPayload.decode(a.payload);
        both.addAll(ListPayload.decode(b.payload));
        set(a, ListPayload.encode(both, ListPayload.CHUNK));
        drop(segments.remove(i + 1));
        i--;
      }
    }
    for (Segment s : segments) {
      if (s.dirty && s.payload[0] != ListPayload.CHUNK) {
        set(s, ListPayload.reencode(s.payload, ListPayload.CHUNK));
      }
    }
    forgetTotals(); // split and merged: counted again at the next read
  }

  private static List<Segment> split(byte[] payload, int encoding) {
    List<Segment> out = new ArrayList<>();
    List<byte[]> piece = new ArrayList<>();
    long bytes = 0;
    for (byte[] e : ListPayload.decode(payload)) {
      long entry = e.length + 2L * Varint.size(e.length);
      if (!piece.isEmpty() && bytes + entry > CHUNK_BYTES) {
        out.add(Segment.fresh(ListPayload.encode(piece, encoding)));
        piece = new ArrayList<>();
        bytes = 0;
      }
      piece.add(e);
      bytes += entry;
    }
    out.add(Segment.fresh(ListPayload.encode(piece, encoding)));
    return out;
  }

  /**
   * Writes a chunked list back, after {@link #normalize}: gives fresh segments their numbers,
   * stores the chunks changed and the index pages made, and returns the head's index. Runs of
   * chunks are listed in the head or folded into fresh index pages as the class notes say.
   *
   * @param head an empty index of the list's collection id and next number, filled in
   * @param store where the chunks and pages go
   * @return {@code head}
   */
  ListChunks.Index write(ListChunks.Index head, ChunkWriter store) {
    foldIntoNeighbours();
    boolean plainEnds = bytes() >= PLAIN_ENDS_MIN;
    Segment first = plainEnds && !segments.isEmpty() ? segments.getFirst() : null;
    Segment last = plainEnds && !segments.isEmpty() ? segments.getLast() : null;
    for (Segment s : segments) {
      if (s.isPage()) {
        continue;
      }
      boolean fresh = s.number < 0;
      if (fresh) {
        s.number = head.takeNumber();
      }
      if (s.dirty || fresh) {
        // A large list's end chunks take the pushes and pops: stored plain, a push reads and
        // writes them without expanding and front-coding them again (tens of microseconds for a
        // chunk of a few hundred short elements); the rest are front-coded when that is shorter.
        boolean end = s == first || s == last;
        store.put(s.number, end ? payload(s) : ListPayload.storedChunk(payload(s)), fresh);
      }
    }
    int n = segments.size();
    for (int i = 0; i < n; ) {
      Segment s = segments.get(i);
      if (s.isPage()) {
        head.addPage(s.number, s.count, s.bytes, s.pageChunks);
        i++;
        continue;
      }
      int j = i;
      while (j < n && !segments.get(j).isPage()) {
        j++;
      }
      int length = j - i;
      int front;
      int back;
      if (i == 0 && j == n) {
        front = length <= 2 * END_CHUNKS ? length : END_KEEP;
        back = length <= 2 * END_CHUNKS ? 0 : END_KEEP;
      } else if (j == n) {
        front = 0;
        back = length <= END_CHUNKS ? length : END_KEEP;
      } else if (i == 0) {
        front = length <= END_CHUNKS ? length : END_KEEP;
        back = 0;
      } else {
        front = 0;
        back = 0;
      }
      for (int k = i; k < i + front; k++) {
        Segment c = segments.get(k);
        head.add(c.number, c.count, c.bytes);
      }
      writePages(i + front, j - back, head, store);
      for (int k = j - back; k < j; k++) {
        Segment c = segments.get(k);
        head.add(c.number, c.count, c.bytes);
      }
      i = j;
    }
    return head;
  }

  /**
   * Reads the index page next to an end run that is about to be folded, when it has room for what
   * the run gives up, so that the two make one page instead of a page per fold.
   */
  private void foldIntoNeighbours() {
    while (pages > 0) {
      int tailRun = 0;
      while (tailRun < segments.size() && !segments.get(segments.size() - 1 - tailRun).isPage()) {
        tailRun++;
      }
      int before = segments.size() - 1 - tailRun;
      if (tailRun > END_CHUNKS
          && segments.get(before).pageChunks + tailRun - END_KEEP <= PAGE_CHUNKS) {
        expand(before);
        continue;
      }
      int headRun = 0;
      while (headRun < segments.size() && !segments.get(headRun).isPage()) {
        headRun++;
      }
      if (headRun > END_CHUNKS
          && segments.get(headRun).pageChunks + headRun - END_KEEP <= PAGE_CHUNKS) {
        expand(headRun);
        continue;
      }
      return;
    }
  }

  /** Folds the chunks at positions {@code from} to {@code to} (exclusive) into fresh pages. */
  private void writePages(int from, int to, ListChunks.Index head, ChunkWriter store) {
    int length = to - from;
    if (length <= 0) {
      return;
    }
    int count = (length + PAGE_CHUNKS - 1) / PAGE_CHUNKS;
    for (int p = 0, at = from; p < count; p++) {
      int end = from + (int) ((long) length * (p + 1) / count);
      ListChunks.Index listed = new ListChunks.Index(0, head.nextNumber());
      long elements = 0;
      long bytes = 0;
      for (int k = at; k < end; k++) {
        Segment c = segments.get(k);
        listed.add(c.number, c.count, c.bytes);
        elements += c.count;
        bytes += c.bytes;
      }
      int number = head.takeNumber();
      store.put(number, listed.encodePage(0, listed.entries()), true);
      head.addPage(
          number,
          (int) Math.min(elements, Integer.MAX_VALUE),
          (int) Math.min(bytes, Integer.MAX_VALUE),
          end - at);
      at = end;
    }
  }

  /**
   * Names what a write-back leaves unused, to remove once the new head is in place: the chunks the
   * command removed, the pages it read (now listed afresh), and the pages it dropped unread with
   * the chunks they list.
   *
   * @param read reads a page's payload, null if absent
   * @param remove given each number to remove
   * @return false if a page dropped unread was missing (its chunks were not named), else true
   */
  boolean removed(IntFunction<byte[]> read, IntConsumer remove) {
    boolean whole = true;
    for (Segment s : dropped) {
      if (s.isPage()) {
        byte[] page = read.apply(s.number);
        if (page == null) {
          whole = false;
        } else {
          ListChunks.Index listed = ListChunks.Index.decodePage(page, index.nextNumber());
          for (int i = 0; i < listed.entries(); i++) {
            remove.accept(listed.number(i));
          }
        }
      }
      remove.accept(s.number);
    }
    for (int number : expanded) {
      remove.accept(number);
    }
    return whole;
  }

  /** Returns every element, head first (reading every segment). */
  public List<byte[]> all() {
    expandAll();
    List<byte[]> all = new ArrayList<>(size());
    for (Segment s : segments) {
      all.addAll(ListPayload.decode(payload(s)));
    }
    return all;
  }

  /** Returns the payload of a packed list of every element (reading every segment). */
  byte[] packedPayload() {
    expandAll();
    if (segments.size() == 1) {
      return ListPayload.reencode(payload(segments.getFirst()), ListPayload.PACKED);
    }
    return ListPayload.encode(all());
  }
}
