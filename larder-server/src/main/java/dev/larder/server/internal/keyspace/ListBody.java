package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.List;

/**
 * A list being read or changed by one command, in either stored form: one packed payload (a small
 * list) or the chunks a chunked list's head names ({@link ListChunks}), each a packed payload read
 * from the store only when the command reaches it. The keyspace builds it ({@link
 * Keyspace#editList}), the command works on it, and the keyspace writes back what changed.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The list is a run of segments, head first, each a packed payload ({@link ListPayload}) with
 * its element count and size. A push changes the end segment, or starts a new one when the end one
 * would pass {@link #CHUNK_BYTES}; a pop changes the end segments and drops emptied ones; an index
 * finds its segment by the counts, so LINDEX, LSET and LRANGE read only the segments they reach. A
 * segment changed is marked dirty: only dirty segments are written back. A segment that a change
 * made larger than a chunk should be is split when the list is written ({@link #normalize}); a
 * small changed segment is merged with a loaded neighbour.
 *
 * <p>Not thread-safe: one command's, under its key's stripe.
 */
public final class ListBody {
  /** The payload size a chunk is filled to. */
  static final int CHUNK_BYTES = 4096;

  /** A packed list whose payload passes this becomes chunked. */
  static final int PACKED_MAX = 8192;

  /** A chunked list whose segments hold less than this together becomes packed again. */
  static final int CHUNKED_MIN = 2048;

  /** Reads a chunk's payload; null if the store no longer holds it. */
  interface Loader {
    byte[] load(int number);
  }

  /** Thrown when a chunk the head names is missing: the list is being evicted. */
  static final class MissingChunk extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MissingChunk() {
      super("a chunk of the list is missing", null, false, false);
    }
  }

  static final class Segment {
    int number;
    int count;
    int bytes;
    byte[] payload;
    boolean dirty;

    Segment(int number, int count, int bytes, byte[] payload) {
      this.number = number;
      this.count = count;
      this.bytes = bytes;
      this.payload = payload;
    }

    static Segment fresh(byte[] payload) {
      Segment s = new Segment(-1, ListPayload.count(payload), payload.length, payload);
      s.dirty = true;
      return s;
    }
  }

  private final List<Segment> segments = new ArrayList<>();
  private final Loader loader;
  private final ListChunks.Index index;
  private boolean changed;

  private ListBody(Loader loader, ListChunks.Index index) {
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
  static ListBody chunked(ListChunks.Index index, Loader loader) {
    ListBody b = new ListBody(loader, index);
    for (int i = 0; i < index.chunks(); i++) {
      b.segments.add(new Segment(index.number(i), index.count(i), index.bytes(i), null));
    }
    return b;
  }

  /**
   * The encoding of segments it makes: a chunked list's chunks are {@link ListPayload#CHUNK}, a
   * packed list's one payload {@link ListPayload#PACKED} (converted when the form changes: {@link
   * #normalize}).
   */
  private int encoding() {
    return index != null ? ListPayload.CHUNK : ListPayload.PACKED;
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
    return changed;
  }

  List<Segment> segmentList() {
    return segments;
  }

  /** Returns the number of elements. */
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

  /** Returns the number of segments (the list's chunks, or 1 for a packed list). */
  public int segmentCount() {
    return segments.size();
  }

  /** Returns the element count of a segment. */
  public int segmentSize(int segment) {
    return segments.get(segment).count;
  }

  /** Returns a segment's elements, head first (reading it if not read yet). */
  public List<byte[]> segmentElements(int segment) {
    return ListPayload.decode(payload(segments.get(segment)));
  }

  /**
   * Replaces a segment's elements; an empty list removes the segment.
   *
   * @param segment the segment's position
   * @param elements its new elements
   */
  public void replaceSegment(int segment, List<byte[]> elements) {
    changed = true;
    if (elements.isEmpty()) {
      segments.remove(segment);
      return;
    }
    Segment s = segments.get(segment);
    set(s, encode(elements));
  }

  private byte[] payload(Segment s) {
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
    s.payload = payload;
    s.count = ListPayload.count(payload);
    s.bytes = payload.length;
    s.dirty = true;
    changed = true;
  }

  /**
   * Pushes the elements at the head one after another (LPUSH a b c leaves c b a).
   *
   * @param elements at least one
   */
  public void pushHead(List<byte[]> elements) {
    changed = true;
    if (!segments.isEmpty() && fits(segments.getFirst(), elements)) {
      Segment s = segments.getFirst();
      set(s, ListPayload.pushHead(payload(s), elements));
      return;
    }
    segments.addFirst(Segment.fresh(encode(elements.reversed())));
  }

  /**
   * Appends the elements at the tail, in order.
   *
   * @param elements at least one
   */
  public void pushTail(List<byte[]> elements) {
    changed = true;
    if (!segments.isEmpty() && fits(segments.getLast(), elements)) {
      Segment s = segments.getLast();
      set(s, ListPayload.pushTail(payload(s), elements));
      return;
    }
    segments.addLast(Segment.fresh(encode(elements)));
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
      Segment s = segments.getFirst();
      ListPayload.Popped p = ListPayload.popHead(payload(s), n - taken.size());
      taken.addAll(p.elements());
      take(s, p.rest());
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
      Segment s = segments.getLast();
      ListPayload.Popped p = ListPayload.popTail(payload(s), n - taken.size());
      taken.addAll(p.elements());
      take(s, p.rest());
    }
    return taken;
  }

  private void take(Segment s, byte[] rest) {
    changed = true;
    if (rest == null) {
      segments.remove(s);
    } else {
      set(s, rest);
    }
  }

  /**
   * Returns the elements from {@code start} to {@code stop} inclusive, both within {@code
   * 0..size-1}, {@code start <= stop}.
   */
  public List<byte[]> range(int start, int stop) {
    List<byte[]> out = new ArrayList<>(stop - start + 1);
    int first = 0;
    for (Segment s : segments) {
      int last = first + s.count - 1;
      if (last >= start && first <= stop) {
        out.addAll(
            ListPayload.range(
                payload(s), Math.max(start, first) - first, Math.min(stop, last) - first));
      }
      if (last >= stop) {
        break;
      }
      first = last + 1;
    }
    return out;
  }

  /** Returns the element at an index within {@code 0..size-1}. */
  public byte[] get(int index) {
    return range(index, index).getFirst();
  }

  /** Replaces the element at an index within {@code 0..size-1}. */
  public void set(int index, byte[] element) {
    int first = 0;
    for (Segment s : segments) {
      if (index < first + s.count) {
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
   * 0..size-1}, {@code start <= stop}: whole segments outside go unread.
   */
  public void trim(int start, int stop) {
    List<Segment> kept = new ArrayList<>();
    int first = 0;
    for (Segment s : segments) {
      int last = first + s.count - 1;
      if (last >= start && first <= stop) {
        int from = Math.max(start, first) - first;
        int to = Math.min(stop, last) - first;
        if (from != 0 || to != s.count - 1) {
          set(s, encode(ListPayload.range(payload(s), from, to)));
        }
        kept.add(s);
      }
      first = last + 1;
    }
    if (kept.size() != segments.size()) {
      changed = true;
      segments.clear();
      segments.addAll(kept);
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
      return;
    }
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      if (s.dirty && s.bytes > CHUNK_BYTES + CHUNK_BYTES / 2) {
        List<Segment> pieces = split(payload(s));
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
        segments.remove(i + 1);
        i--;
      }
    }
    for (Segment s : segments) {
      if (s.dirty && s.payload[0] != ListPayload.CHUNK) {
        set(s, ListPayload.reencode(s.payload, ListPayload.CHUNK));
      }
    }
  }

  private static List<Segment> split(byte[] payload) {
    List<Segment> out = new ArrayList<>();
    List<byte[]> piece = new ArrayList<>();
    long bytes = 0;
    for (byte[] e : ListPayload.decode(payload)) {
      long entry = e.length + 2L * Varint.size(e.length);
      if (!piece.isEmpty() && bytes + entry > CHUNK_BYTES) {
        out.add(Segment.fresh(ListPayload.encode(piece, ListPayload.CHUNK)));
        piece = new ArrayList<>();
        bytes = 0;
      }
      piece.add(e);
      bytes += entry;
    }
    out.add(Segment.fresh(ListPayload.encode(piece, ListPayload.CHUNK)));
    return out;
  }

  /** Returns every element, head first (reading every segment). */
  public List<byte[]> all() {
    List<byte[]> all = new ArrayList<>(size());
    for (Segment s : segments) {
      all.addAll(ListPayload.decode(payload(s)));
    }
    return all;
  }

  /** Returns the payload of a packed list of every element (reading every segment). */
  byte[] packedPayload() {
    if (segments.size() == 1) {
      return ListPayload.reencode(payload(segments.getFirst()), ListPayload.PACKED);
    }
    return ListPayload.encode(all());
  }

  /** Returns a segment's payload, reading it if needed. */
  byte[] payloadOf(Segment s) {
    return payload(s);
  }
}
